"""The notifications of the 2026-07-28 era over stdio, where every request and subscription shares one
channel: `subscriptions/listen` acknowledged first (the SDK's listen server passes; over HTTP the official
suite checks the same rule, and test_conformance_2026.py compares the two there), and log messages only for a
tool call that asked for them, before its answer. Each mode of bad_notifications_server.py fails one check."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from tests.integration.conformance.test_conformance_probe import failing, probe
from tests.integration.mcp.helpers import ROOT

from toolproof.probe.conformance.wire import MODERN_ERA

SERVER = ROOT / "tests" / "servers" / "bad_notifications_server.py"
LISTEN = ROOT / "tests" / "servers" / "listen_server.py"
CHECK = "subscriptions/listen is acknowledged first"
LOGGED = "a tool's log messages arrive during its call"
BROKEN = {"notification-first": CHECK, "foreign-id": CHECK, "unasked-log": LOGGED, "late-log": LOGGED}

pytestmark = pytest.mark.servers


@pytest.mark.parametrize("server", [f"{SERVER} conforming", str(LISTEN)], ids=["stdlib", "sdk"])
def test_an_acknowledged_subscription_passes_over_stdio(server: str, tmp_path: Path) -> None:
    status, verdicts = probe(f"{sys.executable} {server}", tmp_path, "--protocol", MODERN_ERA)
    assert status == 0
    assert verdicts[CHECK] == "PASS"


def test_log_messages_asked_for_by_a_call_are_counted(tmp_path: Path) -> None:
    status, verdicts = probe(f"{sys.executable} {SERVER} conforming", tmp_path, "--protocol", MODERN_ERA)
    assert (status, verdicts[LOGGED]) == (0, "PASS")


@pytest.mark.parametrize("mode", sorted(BROKEN))
def test_each_broken_notification_rule_fails_its_check_alone(mode: str, tmp_path: Path) -> None:
    status, verdicts = probe(f"{sys.executable} {SERVER} {mode}", tmp_path, "--protocol", MODERN_ERA)
    assert status == 1
    assert failing(verdicts) == {BROKEN[mode]}


def test_a_server_that_exits_on_listen_fails_that_check_and_keeps_the_results_before_it(
    tmp_path: Path,
) -> None:
    status, verdicts = probe(f"{sys.executable} {SERVER} listen-exit", tmp_path, "--protocol", MODERN_ERA)
    assert status == 1
    assert failing(verdicts) == {"listen stdio"}
    assert verdicts["server/discover is implemented"] == "PASS"
