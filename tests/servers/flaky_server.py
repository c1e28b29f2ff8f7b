#!/usr/bin/env python3
"""An MCP stdio server whose `flip` tool fails every other call (standard library only), for trial tests.

Calls are counted in the file named by the first argument (created when missing), across processes and at
once from several, under an exclusive lock: calls 1, 3, 5, ... answer `ok`, calls 2, 4, 6, ... answer an
isError result `flaked on call N`. The `steady` tool always answers `ok`; `broken` always fails.
"""

from __future__ import annotations

import fcntl
import json
import sys
from pathlib import Path
from typing import Any

SUPPORTED_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
TOOLS = [
    {"name": name, "description": f"The {name} tool.", "inputSchema": {"type": "object"}}
    for name in ("flip", "steady", "broken")
]


def next_call(counter: Path) -> int:
    """Add one to the count in `counter` and return it, holding an exclusive lock meanwhile."""
    with counter.open("a+", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.seek(0)
        number = int(handle.read().strip() or "0") + 1
        handle.seek(0)
        handle.truncate()
        handle.write(str(number))
        return number


def text(value: str, *, is_error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": value}], "isError": is_error}


def call_tool(name: str, counter: Path) -> dict[str, Any]:
    if name == "steady":
        return text("ok")
    if name == "broken":
        return text("broken on purpose", is_error=True)
    number = next_call(counter)
    return text(f"flaked on call {number}", is_error=True) if number % 2 == 0 else text("ok")


def answer(method: str, params: dict[str, Any], counter: Path) -> dict[str, Any]:
    if method == "initialize":
        asked = params.get("protocolVersion")
        return {
            "protocolVersion": asked if asked in SUPPORTED_VERSIONS else SUPPORTED_VERSIONS[-1],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "flaky", "version": "1.0.0"},
        }
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        return call_tool(params.get("name", ""), counter)
    if method == "ping":
        return {}
    raise NotImplementedError(method)


def main() -> None:
    counter = Path(sys.argv[1] if len(sys.argv) > 1 else "flaky-calls.txt")
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        try:
            reply["result"] = answer(message.get("method", ""), message.get("params") or {}, counter)
        except NotImplementedError as missing:
            reply["error"] = {"code": -32601, "message": f"Method not found: {missing}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
