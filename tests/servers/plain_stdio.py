"""The stdio loop of the small stdlib-only test servers: initialize, ping, tools/list, tools/call.

`serve(name, tools, call)` answers tools/list with `tools` and tools/call with `call(name, arguments)`,
every other request with -32601; it returns when stdin closes.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

Call = Callable[[str, dict[str, Any]], dict[str, Any]]


def answer(
    server: str, tools: list[dict[str, Any]], call: Call, message: dict[str, Any]
) -> dict[str, Any] | None:
    method, ident = message.get("method"), message.get("id")
    if ident is None:
        return None
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": server, "version": "1"},
        }
    elif method == "tools/list":
        result = {"tools": tools}
    elif method == "tools/call":
        params = message.get("params") or {}
        result = call(str(params.get("name", "")), params.get("arguments") or {})
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": f"no method {method}"}}
    return {"jsonrpc": "2.0", "id": ident, "result": result}


def serve(server: str, tools: list[dict[str, Any]], call: Call) -> None:
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        reply = answer(server, tools, call, message) if isinstance(message, dict) else None
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()
