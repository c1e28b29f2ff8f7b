"""A stdlib-only stdio MCP server whose state is one file shared by every instance: STATE_FILE.

Tools: `put` (not read-only) writes its `value` into the file; `get` (declared `readOnlyHint: true`) waits
GET_DELAY seconds (default 0.3), then answers the file's text, so a case that puts then gets sees another
case's value if one ran in between; `hold` (read-only) appends "start T" and "end T" lines (CLOCK_MONOTONIC,
the same for every process) to HOLD_LOG around a wait of HOLD_S seconds (default 1), so a test can tell
whether two cases ran side by side. With EVENT_LOG, each instance appends "EVENT PID T" lines there: "up"
as it starts, "call" at each tool call, and "exit" as it ends: after stdin closes it lingers up to
EXIT_DELAY seconds (default 0), and SIGTERM ends it at once, so a test can tell when a server was gone. It
starts to read stdin START_DELAY seconds (default 0) after it came up.
"""

from __future__ import annotations

import os
import signal
import time
from typing import Any

from plain_stdio import serve

READ_ONLY = {"readOnlyHint": True}
TOOLS = [
    {"name": "put", "inputSchema": {"type": "object", "properties": {"value": {"type": "string"}}}},
    {"name": "get", "inputSchema": {"type": "object"}, "annotations": READ_ONLY},
    {"name": "hold", "inputSchema": {"type": "object"}, "annotations": READ_ONLY},
]


def note(event: str) -> None:
    if os.environ.get("EVENT_LOG"):
        with open(os.environ["EVENT_LOG"], "a") as log:
            log.write(f"{event} {os.getpid()} {time.monotonic()}\n")


def terminated(signum: int, frame: object) -> None:
    note("exit")
    os._exit(0)


def call(name: str, arguments: dict[str, Any]) -> str:
    note("call")
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


note("up")
signal.signal(signal.SIGTERM, terminated)
time.sleep(float(os.environ.get("START_DELAY", "0")))
serve(
    "state-file",
    TOOLS,
    lambda name, arguments: {"content": [{"type": "text", "text": call(name, arguments)}]},
)
time.sleep(float(os.environ.get("EXIT_DELAY", "0")))
note("exit")
