"""The tool calls of a live JSON-RPC session, read from the bytes that pass each way.

Pure: the recorder is fed the chunks as they are forwarded and never changes them. Lines that are not JSON,
not JSON-RPC, or longer than the cap are passed over; a partial line waits for the rest of it. Each
`tools/call` request from the agent is recorded with its arguments, and completed by the server's response
with the same id (`isError`, or a JSON-RPC error). Batches (JSON arrays) are read message by message.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from toolproof.core.framing import LineBuffer
from toolproof.model.transcript import ToolCall

MAX_LINE_BYTES = 64 * 1024 * 1024


@dataclass
class RecordedCall:
    """One `tools/call` the agent made, and how the server answered it (`answered` False: it did not)."""

    tool: str
    args: dict[str, Any]
    started_s: float
    answered: bool = False
    is_error: bool = False
    error: str | None = None
    result: str | None = None
    duration_ms: float | None = None

    def tool_call(self, position: int = 0) -> ToolCall:
        """The call as the transcript records one (`position`: its place among the session's calls)."""
        return ToolCall(
            tool=self.tool,
            arguments=self.args,
            result=self.result,
            is_error=self.is_error,
            duration_ms=self.duration_ms,
            position=position,
        )

    def audit_record(self) -> dict[str, Any]:
        """The call as one line of a JSONL audit log (what `trajectory: audit_log:` reads)."""
        record: dict[str, Any] = {"tool": self.tool, "args": self.args}
        if self.answered:
            record["is_error"] = self.is_error
            if self.error is not None:
                record["error"] = self.error
            if self.result is not None:
                record["result"] = self.result
            record["duration_ms"] = round(self.duration_ms or 0.0, 3)
        return record


def audit_log(calls: Iterable[RecordedCall]) -> str:
    """The calls as a JSONL audit log, one object per line."""
    return "".join(json.dumps(call.audit_record(), ensure_ascii=False) + "\n" for call in calls)


@dataclass
class CallRecorder:
    """Records the tool calls of a session from the chunks each side sends."""

    clock: Callable[[], float] = time.monotonic
    limit: int = MAX_LINE_BYTES
    calls: list[RecordedCall] = field(init=False, default_factory=list)
    _pending: dict[int | str, RecordedCall] = field(init=False, default_factory=dict)
    _agent: LineBuffer = field(init=False)
    _server: LineBuffer = field(init=False)

    def __post_init__(self) -> None:
        self._agent, self._server = LineBuffer(self.limit), LineBuffer(self.limit)

    @property
    def trace(self) -> list[ToolCall]:
        return [call.tool_call(position) for position, call in enumerate(self.calls)]

    def from_agent(self, chunk: bytes) -> None:
        for line in self._agent.feed(chunk):
            self._agent_line(line)

    def from_server(self, chunk: bytes) -> None:
        for line in self._server.feed(chunk):
            self._server_line(line)

    def close(self) -> None:
        """Read what is left of both streams: a last line each side may have sent without a newline."""
        self._agent_line(self._agent.rest())
        self._server_line(self._server.rest())

    def _agent_line(self, line: bytes) -> None:
        if b"tools" not in line:  # cheap: most lines are not tool calls
            return
        for message in _messages(line):
            params = message.get("params")
            if message.get("method") != "tools/call" or not isinstance(params, Mapping):
                continue
            name, arguments = params.get("name"), params.get("arguments")
            if not isinstance(name, str):
                continue
            args = dict(arguments) if isinstance(arguments, Mapping) else {}
            call = RecordedCall(tool=name, args=args, started_s=self.clock())
            self.calls.append(call)
            key = _id(message)
            if key is not None:
                self._pending[key] = call

    def _server_line(self, line: bytes) -> None:
        if not self._pending:  # nothing to complete: no need to read the line
            return
        for message in _messages(line):
            key = _id(message)
            if "method" in message or key is None or key not in self._pending:
                continue
            call = self._pending.pop(key)
            call.answered = True
            call.duration_ms = (self.clock() - call.started_s) * 1000
            error, result = message.get("error"), message.get("result")
            if isinstance(result, Mapping) and error is None:
                call.is_error = result.get("isError") is True
                call.result = _text(result.get("content"))
            else:
                call.is_error = True
                call.error = _error_text(error)


def _messages(line: bytes) -> list[Mapping[str, Any]]:
    """The JSON-RPC objects on a line: one, several (a batch), or none for anything else."""
    if not line.strip():
        return []
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return []
    items = value if isinstance(value, list) else [value]
    return [item for item in items if isinstance(item, Mapping)]


def _id(message: Mapping[str, Any]) -> int | str | None:
    """The message's id when it is one a request can carry (a string or a whole number)."""
    value = message.get("id")
    if isinstance(value, bool):
        return None
    return value if isinstance(value, str | int) else None


def _text(content: Any) -> str | None:
    """The text blocks of a result's content, joined with newlines (None when there is no content list)."""
    if not isinstance(content, list):
        return None
    return "\n".join(
        block["text"]
        for block in content
        if isinstance(block, Mapping) and block.get("type") == "text" and isinstance(block.get("text"), str)
    )


def _error_text(error: Any) -> str:
    if not isinstance(error, Mapping):
        return "the response has neither a result nor an error object"
    return f"{error.get('code')}: {error.get('message')}"
