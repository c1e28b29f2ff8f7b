"""mcp-assert JSONL audit logs: one `{"tool": ..., "args": {...}}` object per line, as one run of one turn.

As mcp-assert reads them: blank lines and `null` are skipped, and so are objects without a non-empty string
`tool` (other audit events); `args` that is not an object counts as no arguments. A line may also carry the
call's `result`, `is_error` (or `isError`) and `duration_ms`. A log records no reply: the run says so
(`metadata["no_reply"]`), so checks on the reply are not evaluated rather than run against an empty one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolproof.model.transcript import ToolCall, Transcript, Turn
from toolproof.sources.traces.errors import TraceError


def looks_like(records: list[Any]) -> bool:
    return any(isinstance(record, Mapping) and isinstance(record.get("tool"), str) for record in records)


def read(records: list[tuple[int, Any]], source: str) -> list[Transcript]:
    calls: list[ToolCall] = []
    for line, record in records:
        if record is None:
            continue
        if not isinstance(record, Mapping):
            raise TraceError("expected a JSON object", line)
        tool = record.get("tool")
        if not isinstance(tool, str) or not tool:
            continue
        args = record.get("args")
        duration = record.get("duration_ms")
        calls.append(
            ToolCall(
                tool=tool,
                arguments=dict(args) if isinstance(args, Mapping) else {},
                result=record.get("result"),
                is_error=bool(record.get("is_error", record.get("isError", False))),
                duration_ms=float(duration)
                if isinstance(duration, int | float) and not isinstance(duration, bool)
                else None,
                position=len(calls),
            )
        )
    return [Transcript(turns=(Turn(calls=tuple(calls)),), source=source, metadata={"no_reply": True})]
