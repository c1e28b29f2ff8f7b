#!/usr/bin/env python3
"""An MCP server (official SDK) whose tools take as long as it is told, for load tests.

`work` sleeps `--delay` seconds (without holding the event loop, so concurrent calls overlap) and answers
`done <label>`; `fails_every` answers an isError result on every Nth call (`every`, default 2) of this
process and `ok` otherwise. With `--calls FILE`, each `work` call adds a line to FILE (so a test can tell that
calls are being made). Run it over stdio (the default), or `--transport streamable-http --port N` on
127.0.0.1.
"""

from __future__ import annotations

import argparse
import itertools

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("slow", version="1.0.0", log_level="WARNING")
DELAY_S = [0.0]
CALLS_FILE: list[str] = []
CALLS = itertools.count(1)


@server.tool()
async def work(label: str = "") -> str:
    """Sleep for the server's delay, then answer."""
    await anyio.sleep(DELAY_S[0])
    for path in CALLS_FILE:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write("call\n")
    return f"done {label}".strip()


@server.tool()
def fails_every(every: int = 2) -> str:
    """An isError result on every `every`th call, `ok` otherwise."""
    if next(CALLS) % max(every, 1) == 0:
        raise ToolError("failed on purpose")
    return "ok"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.0, help="seconds each `work` call sleeps")
    parser.add_argument("--calls", metavar="FILE", help="add a line to FILE for each `work` call")
    parser.add_argument("--transport", choices=["stdio", "streamable-http"], default="stdio")
    parser.add_argument("--port", type=int, default=8000)
    options = parser.parse_args()
    DELAY_S[0] = options.delay
    CALLS_FILE.extend([options.calls] if options.calls else [])
    if options.transport == "stdio":
        server.run()
    else:
        server.run(options.transport, host="127.0.0.1", port=options.port)


if __name__ == "__main__":
    main()
