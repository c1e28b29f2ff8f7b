"""`assert_logging` checks on the `notifications/message` entries received during the call."""

from __future__ import annotations

from toolproof.check.failures import fail, listed
from toolproof.core.gofmt import counted, go_v, quote
from toolproof.model.observation import LogMessage
from toolproof.model.result import Failure
from toolproof.model.server_case import LoggingExpect


def check_logging(expect: LoggingExpect, logs: list[LogMessage]) -> Failure | None:
    """min_messages, then contains_level (exact level names), then contains_data: a substring of some
    message's data as Go's `%v` renders it (a string as is, `map[k:v]` for an object, `<nil>` when absent)."""
    if expect.min_messages is not None and len(logs) < expect.min_messages:
        message = f"expected at least {counted(expect.min_messages, 'log message')}, got {len(logs)}"
        return fail("min_messages", message, expect.min_messages, len(logs))
    levels = [log.level for log in logs]
    missing = [level for level in expect.contains_level or [] if level not in levels]
    if missing:
        seen = listed(dict.fromkeys(levels), "none")
        message = f"no log message at level {listed(missing, 'none')}; levels seen: {seen}"
        return fail("contains_level", message, expect.contains_level, levels)
    data = [go_v(log.data) for log in logs]
    absent = [needle for needle in expect.contains_data or [] if not any(needle in text for text in data)]
    if absent:
        seen = "; ".join(quote(text, 200) for text in data) or "none"
        message = f"no log message data contains {listed(absent, 'none')}; data seen: {seen}"
        return fail("contains_data", message, expect.contains_data, data)
    return None
