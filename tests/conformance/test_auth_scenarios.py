"""The official conformance suite's client scenarios for DPoP, workload identity and enterprise-managed
authorization, with toolproof as the client (via client_adapter.py, which writes the `auth:` block a user
would: `dpop: true`, the `jwt_bearer` grant, the `enterprise` grant), in the releases that have them.

0.1.16's `auth/2025-03-26-oauth-metadata-backcompat` publishes authorization server metadata whose issuer
differs from the URL it is served for; RFC 8414 §3.3 makes a client refuse it, and toolproof must keep
refusing, saying which value is which.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).parents[2]
ADAPTER = Path(__file__).with_name("client_adapter.py")
NODE = ROOT / "node_modules" / ".bin" / "node"
RELEASES = {
    "0.2.0-alpha.12": "node_modules/conformance-0.2.0-alpha.12/dist/index.js",
    "0.1.16": "node_modules/conformance-0.1.16/dist/index.js",
}
PASSING = [
    ("0.2.0-alpha.12", "auth/dpop"),
    ("0.2.0-alpha.12", "auth/dpop-nonce"),
    ("0.2.0-alpha.12", "auth/wif-jwt-bearer"),
    ("0.2.0-alpha.12", "auth/enterprise-managed-authorization"),
    ("0.1.16", "auth/cross-app-access-complete-flow"),
]
REFUSED = ("0.1.16", "auth/2025-03-26-oauth-metadata-backcompat")
AT_ONCE = 3
Outcome = tuple[list[dict[str, Any]], str]

pytestmark = pytest.mark.servers


def suite(release: str) -> list[str]:
    found = ROOT / RELEASES[release]
    assert found.is_file(), f"{found} is missing: run `make setup`"
    return [str(NODE), str(found)]


def run_scenario(release: str, scenario: str, out: Path) -> Outcome:
    """The suite's checks for one scenario, and what toolproof printed."""
    command = [*suite(release), "client", "--command", f"{sys.executable} {ADAPTER}", "--scenario", scenario]
    subprocess.run([*command, "-o", str(out)], capture_output=True, text=True, check=False, timeout=120)
    (result,) = out.glob(f"{scenario}-*")
    checks = json.loads((result / "checks.json").read_text(encoding="utf-8"))
    return checks, (result / "stdout.txt").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[tuple[str, str], Outcome]]:
    out = tmp_path_factory.mktemp("auth-conformance")
    wanted = [*PASSING, REFUSED]
    with ThreadPoolExecutor(AT_ONCE) as pool:
        futures = {key: pool.submit(run_scenario, *key, out / str(i)) for i, key in enumerate(wanted)}
        yield {key: future.result() for key, future in futures.items()}


@pytest.mark.parametrize("release", sorted(RELEASES))
def test_the_scenarios_are_the_suites(release: str) -> None:
    listing = subprocess.run([*suite(release), "list"], capture_output=True, text=True, check=True).stdout
    listed = set(re.findall(r"^\s+- (\S+)", listing.split("Client scenarios", 1)[1], re.MULTILINE))
    assert {scenario for named, scenario in [*PASSING, REFUSED] if named == release} <= listed


@pytest.mark.parametrize(("release", "scenario"), PASSING, ids=[f"{r}:{s}" for r, s in PASSING])
def test_auth_scenario(release: str, scenario: str, outcomes: dict[tuple[str, str], Outcome]) -> None:
    checks, printed = outcomes[release, scenario]
    verdicts = [check for check in checks if check["status"] in ("SUCCESS", "FAILURE", "WARNING")]
    assert verdicts, f"{scenario}: the suite made no check"
    failed = [
        f"{check['id']}: {check.get('errorMessage') or check['description']}"
        for check in verdicts
        if check["status"] != "SUCCESS"
    ]
    assert not failed, f"{scenario}:\n" + "\n".join(failed) + f"\ntoolproof printed:\n{printed}"
    assert "2 passed, 0 failed" in printed


def test_metadata_for_another_issuer_is_refused_naming_both(outcomes: dict[tuple[str, str], Outcome]) -> None:
    checks, printed = outcomes[REFUSED]
    fixed = "the suite's server was fixed: drop this test"
    assert any(check["status"] == "FAILURE" for check in checks), fixed
    mismatch = re.search(r"issuer mismatch: (http://\S+/oauth) != (http://localhost:\d+)", printed)
    assert mismatch, printed
    given, expected = mismatch.groups()
    assert f"fetched for the authorization server {expected} gives its issuer as {given}" in printed
