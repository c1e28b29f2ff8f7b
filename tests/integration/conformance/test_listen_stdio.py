"""`subscriptions/listen` acknowledged first over stdio (2026-07-28), where every subscription shares one
channel: the SDK's listen server passes, and each mode of bad_listen_server.py fails that check alone. (Over
HTTP the official suite checks the same rule: test_conformance_2026.py compares the two there.)"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from tests.integration.conformance.test_conformance_probe import failing, probe
from tests.integration.mcp.helpers import ROOT

from toolproof.probe.conformance.wire import MODERN_ERA

BAD_LISTEN = ROOT / "tests" / "servers" / "bad_listen_server.py"
LISTEN = ROOT / "tests" / "servers" / "listen_server.py"
CHECK = "subscriptions/listen is acknowledged first"

pytestmark = pytest.mark.servers


@pytest.mark.parametrize("server", [f"{BAD_LISTEN} conforming", str(LISTEN)], ids=["stdlib", "sdk"])
def test_an_acknowledged_subscription_passes_over_stdio(server: str, tmp_path: Path) -> None:
    status, verdicts = probe(f"{sys.executable} {server}", tmp_path, "--protocol", MODERN_ERA)
    assert status == 0
    assert verdicts[CHECK] == "PASS"


@pytest.mark.parametrize("mode", ["notification-first", "foreign-id"])
def test_a_subscription_not_acknowledged_first_fails_that_check_alone(mode: str, tmp_path: Path) -> None:
    status, verdicts = probe(f"{sys.executable} {BAD_LISTEN} {mode}", tmp_path, "--protocol", MODERN_ERA)
    assert status == 1
    assert failing(verdicts) == {CHECK}
