"""mcp-assert JSONL audit logs: one `{"tool": ..., "args": {...}}` object per line, as one run of one turn.

The one reader of this format, for `trajectory: audit_log:` cases (`parse_audit_log`, on the raw text) and
for `--traces` files (`read`, on records already parsed); `calls_only` makes the run of such a log, of an
inline trace or of an intercepted session. As mcp-assert reads a log: blank lines and `null`
are skipped, and so are objects without a non-empty string `tool` (other audit events); `args` that is not an
object counts as no arguments; any other line that is not a JSON object is an error naming its line. A line
may also carry the call's `result`, `is_error` (or `isError`) and `duration_ms`. A log records no reply: the
run says so (`Transcript.no_reply`), so checks on the reply are not evaluated rather than run against an
empty one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from toolproof.core.dotpath import NotJSONError, json_type, parse_json
from toolproof.core.gofmt import go_trim
from toolproof.model.transcript import ToolCall, Transcript, Turn
from toolproof.sources.traces.errors import TraceError


class AuditLogError(TraceError):
    """A line of an audit log that is not JSON, or not a JSON object."""


def _call(record: Any, line: int, position: int) -> ToolCall | None:
    """The tool call a record holds, None for a record that is no call, or `AuditLogError`."""
    if record is None:
        return None
    if not isinstance(record, Mapping):
        kind = json_type(record)
        article = "an" if kind[0] in "aeiou" else "a"
        raise AuditLogError(f"expected a JSON object, got {article} {kind}", line)
    tool = record.get("tool")
    if not isinstance(tool, str) or not tool:
        return None
    args = record.get("args")
    duration = record.get("duration_ms")
    timed = float(duration) if isinstance(duration, int | float) and not isinstance(duration, bool) else None
    return ToolCall(
        tool=tool,
        arguments=dict(args) if isinstance(args, Mapping) else {},
        result=record.get("result"),
        is_error=bool(record.get("is_error", record.get("isError", False))),
        duration_ms=timed,
        position=position,
    )


def _calls(records: list[tuple[int, Any]]) -> list[ToolCall]:
    calls: list[ToolCall] = []
    for line, record in records:
        call = _call(record, line, len(calls))
        if call is not None:
            calls.append(call)
    return calls


def parse_audit_log(text: str) -> list[ToolCall]:
    """The tool calls of a JSONL audit log's text, read line by line as mcp-assert reads them (lines split on
    `\\n` and trimmed as Go trims them); raises `AuditLogError` naming the 1-based line of a broken one."""
    records: list[tuple[int, Any]] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        line = go_trim(raw)
        if not line:
            continue
        try:
            records.append((number, parse_json(line)))
        except NotJSONError as error:
            raise AuditLogError(f"invalid JSON ({error})", number) from None
    return _calls(records)


def calls_only(calls: Iterable[ToolCall], source: str = "") -> Transcript:
    """A run that recorded tool calls only (an audit log, an inline trace, an intercepted session): one turn
    of them and no reply (`no_reply`)."""
    return Transcript(turns=(Turn(calls=tuple(calls)),), source=source, no_reply=True)


def read(records: list[tuple[int, Any]], source: str) -> list[Transcript]:
    """The one run of a log whose lines `read_traces` already parsed."""
    return [calls_only(_calls(records), source)]
