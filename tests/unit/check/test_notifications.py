"""`assert_notifications` checks."""

from __future__ import annotations

from typing import Any

import pytest

from toolproof.check.notifications import check_notifications, params_text
from toolproof.model.observation import Notification
from toolproof.model.result import Failure, FailureKind
from toolproof.model.server_case import NotificationExpect

NOTES = [
    Notification(method="notifications/progress", params={"progressToken": 1, "progress": 1.0, "total": 3}),
    Notification(
        method="notifications/message", params={"level": "info", "data": "héllo <b>", "_meta": {"k": 9}},
    ),
    Notification(method="notifications/progress", params={"progressToken": 1, "progress": 2, "total": 3}),
    Notification(method="notifications/tools/list_changed"),
]


def check(expect: dict[str, Any], notes: list[Notification] = NOTES) -> Failure | None:
    return check_notifications(NotificationExpect.model_validate(expect), notes)


def test_params_are_matched_as_go_marshals_them() -> None:
    assert params_text(NOTES[0].params) == '{"progress":1,"progressToken":1,"total":3}'
    assert params_text(NOTES[1].params) == '{"data":"héllo <b>","level":"info"}'  # `_meta` is not part of it
    assert params_text(None) == "null"


@pytest.mark.parametrize(
    "expect",
    [
        {},
        {"min_count": 4, "max_count": 4},
        {"methods": ["notifications/progress", "notifications/message"]},
        {"not_methods": ["notifications/resources/updated"]},
        {"contains_data": ['"progress":2', "héllo <b>", '"level":"info"']},
        {"not_contains_data": ['"k":9', "error"]},
    ],
)
def test_passing_expectations(expect: dict[str, Any]) -> None:
    assert check(expect) is None


def test_count_failures_summarise_what_arrived() -> None:
    failure = check({"min_count": 5})
    assert failure is not None
    assert failure.kind is FailureKind.EXPECTATION
    assert failure.message == (
        "min_count: expected at least 5 notifications, got 4: notifications/progress ×2, "
        "notifications/message, notifications/tools/list_changed"
    )
    assert failure.expected == 5
    assert failure.actual == [note.method for note in NOTES]
    failure = check({"max_count": 0}, [])
    assert failure is None
    failure = check({"max_count": 3})
    assert failure is not None and failure.check == "max_count"
    assert check({"min_count": 1}, []) is not None


def test_method_failures() -> None:
    failure = check({"methods": ["notifications/resources/updated", "notifications/message"]})
    assert failure is not None
    assert failure.message == (
        'methods: "notifications/resources/updated" not received; received: notifications/progress ×2, '
        "notifications/message, notifications/tools/list_changed"
    )
    failure = check({"not_methods": ["notifications/message"]})
    assert failure is not None
    assert failure.message.startswith('not_methods: "notifications/message" was received (received: ')
    failure = check({"methods": ["x"]}, [])
    assert failure is not None and failure.message == 'methods: "x" not received; received: none'


def test_data_failures() -> None:
    failure = check({"contains_data": ["nope"]}, NOTES[:1])
    assert failure is not None
    assert failure.message == (
        'contains_data: no notification params contain "nope"; params seen: '
        'notifications/progress {"progress":1,"progressToken":1,"total":3}'
    )
    failure = check({"not_contains_data": ['"level":"info"']})
    assert failure is not None
    assert failure.message == (
        'not_contains_data: "\\"level\\":\\"info\\"" found in the params of notifications/message: '
        '{"data":"héllo <b>","level":"info"}'
    )


def test_checks_run_in_mcp_assert_order() -> None:
    failure = check({"not_contains_data": ["progress"], "methods": ["zzz"], "max_count": 1})
    assert failure is not None and failure.check == "max_count"
