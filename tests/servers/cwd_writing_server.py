"""A stdlib-only stdio MCP server that writes into its working directory, as some real servers do.

At start it writes `started-here` into its working directory; its one tool, `save`, writes a file named
by its `name` argument there (fuzzing it sends names like `' OR 1=1 --`). A probe must run it somewhere
other than the caller's directory.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

TOOLS = [
    {
        "name": "save",
        "description": "Save a note under a file name.",
        "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    }
]


def save(arguments: dict[str, Any]) -> dict[str, Any]:
    name = str(arguments.get("name") or "unnamed")
    try:
        with open(os.path.join(os.getcwd(), name.replace("/", "_")), "w") as handle:
            handle.write("note")
    except OSError as error:
        return {"content": [{"type": "text", "text": str(error)}], "isError": True}
    return {"content": [{"type": "text", "text": "saved"}]}


def answer(message: dict[str, Any]) -> dict[str, Any] | None:
    method, ident = message.get("method"), message.get("id")
    if ident is None:
        return None
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "cwd-writing", "version": "1"},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        result = save((message.get("params") or {}).get("arguments") or {})
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": f"no method {method}"}}
    return {"jsonrpc": "2.0", "id": ident, "result": result}


with open("started-here", "w") as marker:
    marker.write(str(os.getpid()))
for line in sys.stdin:
    try:
        request = json.loads(line)
    except ValueError:
        continue
    reply = answer(request) if isinstance(request, dict) else None
    if reply is not None:
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
