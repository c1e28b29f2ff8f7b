"""A stdlib-only stdio MCP server whose state is one file shared by every instance: STATE_FILE.

Tools: `put` (not read-only) writes its `value` into the file; `get` (declared `readOnlyHint: true`) waits
GET_DELAY seconds (default 0.3), then answers the file's text, so a case that puts then gets sees another
case's value if one ran in between; `hold` (read-only) appends "start T" and "end T" lines (CLOCK_MONOTONIC,
the same for every process) to HOLD_LOG around a wait of HOLD_S seconds (default 1), so a test can tell
whether two cases ran side by side.
"""

from __future__ import annotations

import os
import time
from typing import Any

from plain_stdio import serve

READ_ONLY = {"readOnlyHint": True}
TOOLS = [
    {"name": "put", "inputSchema": {"type": "object", "properties": {"value": {"type": "string"}}}},
    {"name": "get", "inputSchema": {"type": "object"}, "annotations": READ_ONLY},
    {"name": "hold", "inputSchema": {"type": "object"}, "annotations": READ_ONLY},
]


def call(name: str, arguments: dict[str, Any]) -> str:
    if name == "put":
        with open(os.environ["STATE_FILE"], "w") as handle:
            handle.write(str(arguments.get("value", "")))
        return "stored"
    if name == "get":
        time.sleep(float(os.environ.get("GET_DELAY", "0.3")))
        with open(os.environ["STATE_FILE"]) as handle:
            return handle.read()
    with open(os.environ["HOLD_LOG"], "a") as log:
        log.write(f"start {time.monotonic()}\n")
    time.sleep(float(os.environ.get("HOLD_S", "1")))
    with open(os.environ["HOLD_LOG"], "a") as log:
        log.write(f"end {time.monotonic()}\n")
    return "held"


serve(
    "state-file",
    TOOLS,
    lambda name, arguments: {"content": [{"type": "text", "text": call(name, arguments)}]},
)
