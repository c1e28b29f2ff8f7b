"""A stdlib-only stdio MCP server that follows the protocol except for the one rule its MODE breaks.

Usage: nonconforming_server.py MODE, where MODE is `conforming` or one of the names in BREAKS. The
well-behaved base answers initialize (countering an unknown version with 2025-11-25), ping, logging/setLevel,
tools/list (in two pages), tools/call and resources/subscribe, with -32601 for other methods and -32602 for
malformed params.
"""

from __future__ import annotations

import json
import sys
from typing import Any

MODE = sys.argv[1] if len(sys.argv) > 1 else "conforming"
BREAKS = {
    "echo-version": "answers initialize with the unknown version it was offered",
    "early-request": "asks for roots/list before `initialized`",
    "busy-ping": "answers ping with a non-empty result",
    "unknown-as-result": "answers an unknown method with a result",
    "internal-params": "answers malformed params with -32603",
    "numeric-ids": "echoes string ids as numbers where it can",
    "endless-pages": "hands out a nextCursor forever",
    "duplicate-pages": "lists a tool on both pages",
    "silent-logging": "advertises logging but has no logging/setLevel",
    "hidden-subscribe": "implements resources/subscribe without advertising it",
    "bad-schema": "declares an inputSchema that is not valid JSON Schema",
    "wrong-structure": "returns structuredContent that violates its outputSchema",
    "stray-progress": "sends progress for a token nobody sent",
    "unannounced-list-changed": "sends tools/list_changed without declaring listChanged",
    "cancel-crash": "exits on a cancellation for a request it never saw",
    "no-ping": "has no ping (answers it with -32601, as for any unknown method)",
    "bad-image": "returns image content whose data is not base64",
    "bad-log": "sends a log message at a level that does not exist",
    "undeclared-log": "sends log messages without declaring logging (and has no logging/setLevel)",
    "bad-default": "asks for a form whose default is not one of its enum values (SEP-1034)",
    "bad-enum-names": "asks for a form whose enumNames do not match its enum (SEP-1330)",
    "late-progress": "sends a tool call's progress after its answer",
}
FORMS = {
    "bad-default": {"status": {"type": "string", "enum": ["active", "idle"], "default": "gone"}},
    "bad-enum-names": {"status": {"type": "string", "enum": ["active", "idle"], "enumNames": ["Active"]}},
}
assert MODE == "conforming" or MODE in BREAKS, f"unknown mode {MODE}"

OUTPUT_SCHEMA = {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}
TOOLS = [
    {
        "name": "count",
        "inputSchema": {"type": "object"},
        "outputSchema": OUTPUT_SCHEMA,
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "echo",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    },
]
if MODE == "bad-schema":
    TOOLS[1] = {**TOOLS[1], "inputSchema": {"type": "object", "properties": {"text": {"type": 12}}}}


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def result(ident: Any, value: dict[str, Any]) -> None:
    if MODE == "numeric-ids" and isinstance(ident, str) and ident.isdigit():
        ident = int(ident)
    send({"jsonrpc": "2.0", "id": ident, "result": value})


def error(ident: Any, code: int, text: str) -> None:
    send({"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": text}})


def capabilities() -> dict[str, Any]:
    caps: dict[str, Any] = {"tools": {}, "resources": {"subscribe": MODE != "hidden-subscribe"}}
    if MODE != "unannounced-list-changed":
        caps["tools"]["listChanged"] = True
    if MODE != "undeclared-log":
        caps["logging"] = {}
    return caps


def list_tools(ident: Any, params: dict[str, Any]) -> None:
    cursor = params.get("cursor")
    if MODE == "endless-pages":
        result(ident, {"tools": [], "nextCursor": f"{cursor or ''}x"})
    elif cursor is None:
        result(ident, {"tools": TOOLS[:1], "nextCursor": "page-2"})
    else:
        result(ident, {"tools": TOOLS[:1] if MODE == "duplicate-pages" else TOOLS[1:]})


def call_tool(ident: Any, params: dict[str, Any]) -> None:
    if not isinstance(params.get("name"), str) or not isinstance(params.get("arguments", {}), dict):
        error(ident, -32603 if MODE == "internal-params" else -32602, "name must be a string")
        return
    token = (params.get("_meta") or {}).get("progressToken")
    if MODE == "stray-progress":
        token = "made-up-token"
    progress = {
        "jsonrpc": "2.0",
        "method": "notifications/progress",
        "params": {"progressToken": token, "progress": 1},
    }
    if token is not None and MODE != "late-progress":
        send(progress)
    if MODE in ("bad-log", "undeclared-log"):
        level = "loud" if MODE == "bad-log" else "info"
        send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": level, "data": "hi"}})
    if MODE in FORMS:  # the probe's answer comes back as a message without a method, which handle() ignores
        form = {"type": "object", "properties": FORMS[MODE]}
        asked = {"message": "Status?", "requestedSchema": form}
        send({"jsonrpc": "2.0", "id": "e1", "method": "elicitation/create", "params": asked})
    count = "many" if MODE == "wrong-structure" else 2
    content: list[dict[str, Any]] = [{"type": "text", "text": json.dumps({"count": count})}]
    if MODE == "bad-image":
        content.append({"type": "image", "data": "not base64!", "mimeType": "image/png"})
    result(ident, {"content": content, "structuredContent": {"count": count}})
    if token is not None and MODE == "late-progress":
        send(progress)


def handle(message: dict[str, Any]) -> None:
    method, ident, params = message.get("method"), message.get("id"), message.get("params") or {}
    if method == "notifications/cancelled" and MODE == "cancel-crash":
        sys.exit(3)
    if ident is None or method is None:
        return
    if method == "initialize":
        offered = params.get("protocolVersion")
        version = offered if MODE == "echo-version" or offered == "2025-06-18" else "2025-11-25"
        info = {"name": "nonconforming", "version": "1"}
        result(ident, {"protocolVersion": version, "capabilities": capabilities(), "serverInfo": info})
        if MODE == "early-request":
            send({"jsonrpc": "2.0", "id": "s1", "method": "roots/list"})
        if MODE == "unannounced-list-changed":
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    elif method == "ping" and MODE != "no-ping":
        result(ident, {"busy": True} if MODE == "busy-ping" else {})
    elif method == "tools/list":
        list_tools(ident, params)
    elif method == "tools/call":
        call_tool(ident, params)
    elif method == "logging/setLevel" and MODE not in ("silent-logging", "undeclared-log"):
        result(ident, {})
    elif method in ("resources/subscribe", "resources/unsubscribe"):
        if isinstance(params.get("uri"), str):
            result(ident, {})
        else:
            error(ident, -32602, "uri must be a string")
    elif method == "resources/list":
        result(ident, {"resources": []})
    elif method == "resources/read":
        error(ident, -32602, "uri must be a string") if not isinstance(params.get("uri"), str) else error(
            ident, -32002, "not found"
        )
    elif MODE == "unknown-as-result":
        result(ident, {})
    else:
        error(ident, -32601, f"method not found: {method}")


def main() -> None:
    for line in sys.stdin:
        if line.strip():
            message = json.loads(line)
            if isinstance(message, dict):
                handle(message)


if __name__ == "__main__":
    main()
