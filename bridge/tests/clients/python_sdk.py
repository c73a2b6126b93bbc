"""Drives the built zellij-mcp bridge with the official Python MCP SDK (PyPI
`mcp`), as any Python agent would, and prints what it saw as one JSON object.

usage: python_sdk.py BRIDGE ZELLIJ MARKER
The bridge gets this process's environment (the test session's).
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def structured(result):
    if result.is_error:
        raise SystemExit(f"tool error: {result.content}")
    return result.structured_content


async def main(bridge, zellij, marker):
    server = StdioServerParameters(
        command=bridge, args=["--zellij", zellij], env=dict(os.environ)
    )
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            panes = structured(await session.call_tool("zellij_list_panes", {}))
            pane = panes["panes"][0]["pane_id"]
            screen = structured(await session.call_tool("zellij_read", {"pane_id": pane}))
            script = f"echo from-python > {marker}; echo run-output"
            run = structured(
                await session.call_tool("zellij_run", {"command": ["sh", "-c", script]})
            )
            progress = []

            async def on_progress(done, total, message):
                progress.append(message)

            waited = structured(
                await session.call_tool(
                    "zellij_wait_for",
                    {"pane_id": pane, "pattern": "never-shown", "timeout_ms": 3500},
                    progress_callback=on_progress,
                )
            )
            print(
                json.dumps(
                    {
                        "tools": sorted(t.name for t in tools.tools),
                        "pane": pane,
                        "screen_pane": screen["pane_id"],
                        "run": run,
                        "wait": waited,
                        "progress": progress,
                    }
                )
            )


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
