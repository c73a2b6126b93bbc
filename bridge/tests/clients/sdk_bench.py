"""Times tool calls made through the official Python MCP SDK (PyPI `mcp`),
as a Python agent makes them, for `make bench`.

usage: sdk_bench.py BRIDGE ZELLIJ CALLERS < PLAN
PLAN (stdin) is a JSON list of [tool, arguments]; each of CALLERS sessions (one
bridge each, over stdio, all at once) makes every call of the plan in
order. Prints one JSON object: for each caller, each call's milliseconds,
whether its result was an error, and its results; the seconds all callers
took; and the CPU seconds this process and the bridges (its children) used.
The bridges get this process's environment (the bench's session).
"""

import asyncio
import json
import os
import resource
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def caller(bridge, zellij, plan, ready, start):
    server = StdioServerParameters(
        command=bridge, args=["--zellij", zellij], env=dict(os.environ)
    )
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            # The SDK checks results against the tools' output schemas.
            await session.list_tools()
            ready.release()
            await start.wait()
            took, errors, results = [], 0, []
            for tool, args in plan:
                begun = time.perf_counter()
                result = await session.call_tool(tool, args)
                took.append((time.perf_counter() - begun) * 1000)
                errors += bool(result.is_error)
                results.append(result.structured_content)
            return {"ms": took, "errors": errors, "results": results}


async def main(bridge, zellij, callers, plan):
    ready, start = asyncio.Semaphore(0), asyncio.Event()
    tasks = [
        asyncio.create_task(caller(bridge, zellij, plan, ready, start))
        for _ in range(callers)
    ]
    for _ in range(callers):
        await ready.acquire()
    begun, cpu = time.perf_counter(), time.process_time()
    start.set()
    done = await asyncio.gather(*tasks)
    seconds, cpu = time.perf_counter() - begun, time.process_time() - cpu
    bridges = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(
        json.dumps(
            {
                "callers": done,
                "seconds": seconds,
                "client_cpu": cpu,
                "bridges_cpu": bridges.ru_utime + bridges.ru_stime,
            }
        )
    )


if __name__ == "__main__":
    bridge, zellij, callers = sys.argv[1:4]
    asyncio.run(main(bridge, zellij, int(callers), json.load(sys.stdin)))
