"""`assert_logging` checks."""

from __future__ import annotations

from typing import Any

from toolproof.check.logging import check_logging
from toolproof.model.observation import LogMessage
from toolproof.model.result import Failure, FailureKind
from toolproof.model.server_case import LoggingExpect

LOGS = [
    LogMessage(level="info", data="started ☃"),
    LogMessage(level="warning", data={"code": 1234567, "msg": "disk low"}, logger="fs"),
    LogMessage(level="debug"),
]


def check(expect: dict[str, Any], logs: list[LogMessage] = LOGS) -> Failure | None:
    return check_logging(LoggingExpect.model_validate(expect), logs)


def test_passing_expectations() -> None:
    assert check({}) is None
    assert check({"min_messages": 3, "contains_level": ["info", "warning"]}) is None
    # data is matched in Go's %v form (as mcp-assert does), with exact numbers
    assert check({"contains_data": ["started ☃", "map[code:1234567 msg:disk low]", "<nil>"]}) is None


def test_min_messages() -> None:
    failure = check({"min_messages": 1}, [])
    assert failure is not None
    assert failure.kind is FailureKind.EXPECTATION
    assert failure.message == "min_messages: expected at least 1 log message, got 0"
    assert (failure.check, failure.expected, failure.actual) == ("min_messages", 1, 0)


def test_contains_level() -> None:
    failure = check({"contains_level": ["error", "info", "critical"]})
    assert failure is not None
    assert failure.message == (
        'contains_level: no log message at level "error", "critical"; levels seen: "info", "warning", "debug"'
    )


def test_contains_data() -> None:
    failure = check({"contains_data": ["disk full"]}, LOGS[:2])
    assert failure is not None
    assert failure.message == (
        'contains_data: no log message data contains "disk full"; data seen: "started ☃"; '
        '"map[code:1234567 msg:disk low]"'
    )
    assert failure.actual == ["started ☃", "map[code:1234567 msg:disk low]"]


def test_min_messages_is_checked_first() -> None:
    failure = check({"contains_level": ["error"], "min_messages": 9})
    assert failure is not None and failure.check == "min_messages"
