#!/usr/bin/env python3
"""An MCP stdio server (standard library only) that writes to stdout what is not MCP, as careless servers do.

It prints a banner (with terminal colour escapes) before it reads anything, and its `chatty` tool prints a
debug line before it answers; `quiet` prints nothing. Every answer is correct: only the stray lines are
wrong. With `--quiet-start` the banner is left out, so only a `chatty` call writes a stray line. (The
official Python SDK 2.x diverts a tool's `print()` away from stdout while it serves; servers on other SDKs,
on 1.x, or that print before they serve, write such lines where the client reads its messages.)
"""

from __future__ import annotations

import json
import sys
from typing import Any

SUPPORTED_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
BANNER = "\x1b[1;32mchatty server v1.0 ready\x1b[0m"
NAME = {"type": "object", "properties": {"name": {"type": "string", "description": "who to greet"}}}
TOOLS = [
    {
        "name": "chatty",
        "description": "Greets someone by name, printing a debug line first.",
        "inputSchema": NAME,
    },
    {
        "name": "quiet",
        "description": "Greets someone by name without printing anything.",
        "inputSchema": NAME,
    },
]


class InvalidParams(Exception):
    """A request whose params this server cannot use: answered -32602."""


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
    if method == "initialize":
        asked = params.get("protocolVersion")
        return {
            "protocolVersion": asked if asked in SUPPORTED_VERSIONS else SUPPORTED_VERSIONS[-1],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "stray-stdout", "version": "1.0.0"},
        }
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        arguments = params.get("arguments")
        if params.get("name") not in ("chatty", "quiet") or not isinstance(arguments, dict):
            raise InvalidParams(f"unknown tool or arguments not an object: {params!r:.80}")
        name = str(arguments.get("name", ""))
        if params["name"] == "chatty":
            say(f"DEBUG chatty called with {name}")
        return {"content": [{"type": "text", "text": f"Hello, {name}!"}]}
    if method == "ping":
        return {}
    raise NotImplementedError(method)


def main() -> None:
    if "--quiet-start" not in sys.argv[1:]:
        say(BANNER)
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message or "method" not in message:
            continue
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        try:
            reply["result"] = answer(message.get("method", ""), message.get("params") or {})
        except NotImplementedError as missing:
            reply["error"] = {"code": -32601, "message": f"Method not found: {missing}"}
        except InvalidParams as problem:
            reply["error"] = {"code": -32602, "message": str(problem)}
        say(json.dumps(reply))


if __name__ == "__main__":
    main()
