#!/usr/bin/env python3
"""A tiny MCP server over stdio, standard library only: it starts in a few tens of milliseconds.

Tools: echo (text back), add (a + b), describe (a JSON document about its arguments), fail (an
isError result). Run it as `python tiny_server.py`; it reads JSON-RPC lines on stdin.
"""

from __future__ import annotations

import json
import sys
from typing import Any

SUPPORTED_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
TEXT = {"type": "string"}
NUMBER = {"type": "number"}

TOOLS: list[dict[str, Any]] = [
    {
        "name": "echo",
        "description": "Returns the text it is given.",
        "inputSchema": {"type": "object", "properties": {"text": TEXT}, "required": ["text"]},
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "add",
        "description": "Returns the sum of a and b.",
        "inputSchema": {"type": "object", "properties": {"a": NUMBER, "b": NUMBER}, "required": ["a", "b"]},
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "describe",
        "description": "Returns a JSON document describing its arguments: their names, count and values.",
        "inputSchema": {"type": "object", "additionalProperties": True},
    },
    {
        "name": "fail",
        "description": "Always fails with an isError result carrying the given reason.",
        "inputSchema": {"type": "object", "properties": {"reason": TEXT}},
    },
]


def text_result(text: str, *, is_error: bool = False) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if is_error:
        result["isError"] = True
    return result


def call_tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    if name == "echo":
        return text_result(str(arguments.get("text", "")))
    if name == "add":
        total = arguments.get("a", 0) + arguments.get("b", 0)
        return text_result(json.dumps(total))
    if name == "describe":
        document = {"names": sorted(arguments), "count": len(arguments), "values": arguments}
        return {**text_result(json.dumps(document)), "structuredContent": document}
    if name == "fail":
        return text_result(f"failed: {arguments.get('reason', 'no reason given')}", is_error=True)
    raise LookupError(name)


def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
    if method == "initialize":
        asked = params.get("protocolVersion")
        return {
            "protocolVersion": asked if asked in SUPPORTED_VERSIONS else SUPPORTED_VERSIONS[-1],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "tiny", "version": "1.0.0"},
        }
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        return call_tool(params.get("name", ""), params.get("arguments") or {})
    raise NotImplementedError(method)


def respond(message: dict[str, Any]) -> dict[str, Any]:
    reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
    method = message.get("method", "")
    try:
        reply["result"] = answer(method, message.get("params") or {})
    except NotImplementedError:
        reply["error"] = {"code": -32601, "message": f"Method not found: {method}"}
    except LookupError as missing:
        reply["error"] = {"code": -32602, "message": f"Unknown tool: {missing}"}
    except (TypeError, ValueError) as problem:
        reply["error"] = {"code": -32602, "message": f"Invalid arguments: {problem}"}
    return reply


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            error = {"code": -32700, "message": "Parse error"}
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": None, "error": error}) + "\n")
        else:
            if "id" not in message or "method" not in message:
                continue  # a notification, or a response to a request we never send
            sys.stdout.write(json.dumps(respond(message)) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
