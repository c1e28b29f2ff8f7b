"""`assert_notifications` checks on every notification the server sent during the call."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from toolproof.check.failures import fail, listed
from toolproof.core.gofmt import counted, cut, go_json, quote
from toolproof.model.observation import Notification
from toolproof.model.result import Failure
from toolproof.model.server_case import NotificationExpect


def params_text(params: Any) -> str:
    """The params as mcp-assert matches them: Go's `json.Marshal` (compact, keys sorted) without `_meta`."""
    if isinstance(params, Mapping):
        params = {key: value for key, value in params.items() if key != "_meta"}
    return go_json(params)


def _received(notifications: list[Notification]) -> str:
    """`notifications/message ×2, notifications/progress`, in order of first arrival."""
    counts = Counter(note.method for note in notifications)
    shown = [method if count == 1 else f"{method} ×{count}" for method, count in counts.items()]
    return ", ".join(shown) or "none"


def check_notifications(expect: NotificationExpect, notifications: list[Notification]) -> Failure | None:
    """The first failing expectation, in mcp-assert's order: counts, methods, then params substrings."""
    count = len(notifications)
    methods = [note.method for note in notifications]
    if expect.min_count is not None and count < expect.min_count:
        message = f"expected at least {counted(expect.min_count, 'notification')}, got {count}: "
        return fail("min_count", message + _received(notifications), expect.min_count, methods)
    if expect.max_count is not None and count > expect.max_count:
        message = f"expected at most {counted(expect.max_count, 'notification')}, got {count}: "
        return fail("max_count", message + _received(notifications), expect.max_count, methods)
    missing = [method for method in expect.methods or [] if method not in methods]
    if missing:
        return fail(
            "methods",
            f"{listed(missing)} not received; received: {_received(notifications)}",
            expect.methods,
            methods,
        )
    forbidden = [method for method in expect.not_methods or [] if method in methods]
    if forbidden:
        message = f"{listed(forbidden)} was received (received: {_received(notifications)})"
        return fail("not_methods", message, expect.not_methods, methods)
    texts = [params_text(note.params) for note in notifications]
    absent = [needle for needle in expect.contains_data or [] if not any(needle in text for text in texts)]
    if absent:
        pairs = zip(notifications, texts, strict=True)
        seen = "; ".join(f"{note.method} {cut(text, 200)}" for note, text in pairs) or "none"
        message = f"no notification params contain {listed(absent)}; params seen: {seen}"
        return fail("contains_data", message, expect.contains_data, texts)
    for needle in expect.not_contains_data or []:
        for note, text in zip(notifications, texts, strict=True):
            if needle in text:
                message = f"{quote(needle, 80)} found in the params of {note.method}: {cut(text, 300)}"
                return fail("not_contains_data", message, expect.not_contains_data, text)
    return None
