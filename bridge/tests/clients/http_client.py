"""Talks to `zellij-mcp serve --http` with the official Python MCP SDK's
streamable HTTP client, as a remote agent would, and prints what it saw as
one JSON object.

usage: http_client.py URL TOKEN
"""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


def structured(result):
    if result.is_error:
        raise SystemExit(f"tool error: {result.content}")
    return result.structured_content


async def main(url, token):
    headers = {"Authorization": f"Bearer {token}"}
    async with create_mcp_http_client(headers=headers) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            await talk(*streams[:2])


async def talk(read, write):
    async with ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        panes = structured(await session.call_tool("zellij_list_panes", {}))
        pane = panes["panes"][0]["pane_id"]
        screen = structured(await session.call_tool("zellij_read", {"pane_id": pane}))
        seen = {
            "tools": [t.name for t in tools.tools],
            "panes": [p["pane_id"] for p in panes["panes"]],
            "screen_pane": screen["pane_id"],
        }
        print(json.dumps(seen))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:3]))
