"""`assert_logging` checks on the `notifications/message` entries received during the call."""

from __future__ import annotations

from typing import Any

from toolproof.core.gofmt import counted, go_v, quote
from toolproof.model.observation import LogMessage
from toolproof.model.result import Failure, FailureKind
from toolproof.model.server_case import LoggingExpect


def _fail(check: str, message: str, expected: Any, actual: Any) -> Failure:
    return Failure(kind=FailureKind.EXPECTATION, check=check, message=f"{check}: {message}",
                   expected=expected, actual=actual)


def _listed(items: list[str]) -> str:
    return ", ".join(quote(item, 80) for item in items) or "none"


def check_logging(expect: LoggingExpect, logs: list[LogMessage]) -> Failure | None:
    """min_messages, then contains_level (exact level names), then contains_data: a substring of some
    message's data as Go's `%v` renders it (a string as is, `map[k:v]` for an object, `<nil>` when absent)."""
    if expect.min_messages is not None and len(logs) < expect.min_messages:
        message = f"expected at least {counted(expect.min_messages, 'log message')}, got {len(logs)}"
        return _fail("min_messages", message, expect.min_messages, len(logs))
    levels = [log.level for log in logs]
    missing = [level for level in expect.contains_level or [] if level not in levels]
    if missing:
        seen = _listed(list(dict.fromkeys(levels)))
        return _fail("contains_level", f"no log message at level {_listed(missing)}; levels seen: {seen}",
                     expect.contains_level, levels)
    data = [go_v(log.data) for log in logs]
    absent = [needle for needle in expect.contains_data or [] if not any(needle in text for text in data)]
    if absent:
        seen = "; ".join(quote(text, 200) for text in data) or "none"
        return _fail("contains_data", f"no log message data contains {_listed(absent)}; data seen: {seen}",
                     expect.contains_data, data)
    return None
