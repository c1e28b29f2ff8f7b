"""`expect_notification` and `assert_notifications` on a 2026-07-28 server (the official SDK's), where a
resource subscription and list changes come only over `subscriptions/listen` streams."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.integration.cli.conftest import Outcome

pytestmark = pytest.mark.servers

ROOT = Path(__file__).resolve().parents[3]
LISTEN = f"server: {{command: {sys.executable}, args: [{ROOT / 'tests/servers/listen_server.py'}]}}\n"

CASES = {
    "a subscribed resource reports updates": (
        "PASS", "assert_resources: {read: 'clock://now', subscribe: 'clock://now', expect_notification: true}"
    ),
    "a frozen resource reports none": (
        "PASS", "assert_resources: {read: 'clock://frozen', subscribe: 'clock://frozen', "
        "unsubscribe: 'clock://frozen', expect_notification: false}"
    ),
    "an update that never comes": (
        "FAIL", "assert_resources: {read: 'clock://frozen', subscribe: 'clock://frozen', "
        "expect_notification: true}"
    ),
    "a tool that changes the tool list says so": (
        "PASS", "assert_notifications: {tool: add_tool, args: {name: extra}, expect: {methods: "
        "['notifications/tools/list_changed'], not_methods: ['notifications/subscriptions/acknowledged'], "
        "max_count: 1}}"
    ),
    "a tool that touches a resource does not change a list": (
        "FAIL", "assert_notifications: {tool: touch, args: {uri: 'clock://frozen'}, expect: {min_count: 1}}"
    ),
}


def test_notifications_over_listen_streams(
    write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome]
) -> None:
    files = {f"{n:02d}.yaml": f"name: {name}\n{LISTEN}{body}\n" for n, (name, (_, body)) in
             enumerate(CASES.items())}
    outcome = toolproof(str(write_suite(files)), "--protocol", "2026-07-28", "--subscription-wait", "2s",
                        "-j", "3")
    expected = {name: verdict for name, (verdict, _) in CASES.items()}
    assert outcome.verdicts() == expected, [
        (r["name"], r["failure"]) for r in outcome.report["results"] if r["status"] != expected[r["name"]]
    ]
    assert {result["protocol"] for result in outcome.report["results"]} == {"2026-07-28"}
    missed = outcome.result("an update that never comes")["failure"]
    assert missed["message"] == (
        "expect_notification: no notifications/resources/updated arrived after subscribing"
    )
