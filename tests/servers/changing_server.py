#!/usr/bin/env python3
"""An MCP stdio server (standard library only) whose answer and tool definition come from a JSON file, so a
test can change them between two runs, as a server changes between two releases.

The file (the first argument) holds `{"answer": TEXT, "description": TEXT, "annotations": {...}}`, each
optional; the one tool, `answer`, returns the answer as its text, and is listed with that description and
those annotations. The file is read again for every request.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

SUPPORTED_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")


def settings() -> dict[str, Any]:
    loaded = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    return loaded if isinstance(loaded, dict) else {}


def tool() -> dict[str, Any]:
    given = settings()
    listed: dict[str, Any] = {
        "name": "answer",
        "description": given.get("description", "Returns the configured answer as text."),
        "inputSchema": {"type": "object", "properties": {}},
    }
    if "annotations" in given:
        listed["annotations"] = given["annotations"]
    return listed


def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
    if method == "initialize":
        asked = params.get("protocolVersion")
        return {
            "protocolVersion": asked if asked in SUPPORTED_VERSIONS else SUPPORTED_VERSIONS[-1],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "changing", "version": "1.0.0"},
        }
    if method == "tools/list":
        return {"tools": [tool()]}
    if method == "tools/call":
        return {"content": [{"type": "text", "text": str(settings().get("answer", "ok"))}]}
    if method == "ping":
        return {}
    raise NotImplementedError(method)


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message or "method" not in message:
            continue
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        try:
            reply["result"] = answer(message["method"], message.get("params") or {})
        except NotImplementedError as missing:
            reply["error"] = {"code": -32601, "message": f"Method not found: {missing}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
