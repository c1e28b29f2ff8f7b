"""`toolproof conformance` on a 2025-era Streamable HTTP server that breaks one session or SSE rule per mode
(tests/servers/bad_sessions_server.py): each mode fails exactly its own check, and where the official suite
tests the same rule (its scenario run on that mode alone) it fails it too; both pass the conforming mode.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest
from tests.integration.conformance.test_conformance_probe import failing, probe
from tests.integration.conformance.test_official_side_by_side import WORST, our_verdict, ours, requirement
from tests.integration.mcp.helpers import ROOT, listening

from toolproof.probe.conformance.official import ALPHA, STABLE

SERVER = ROOT / "tests" / "servers" / "bad_sessions_server.py"
NODE = ROOT / "node_modules" / ".bin" / "node"
# The rule each mode breaks, as the check that must fail (and no other).
BROKEN = {
    "invisible-session-id": "session id is visible ASCII",
    "alive-after-delete": "DELETE ends the session",
    "no-session-required": "session header required",  # the official suite does not test it
    "no-priming": "SSE priming event (SEP-1699)",
}
# The official release and scenario that test the rule a mode breaks.
SCENARIOS = {
    "invisible-session-id": (ALPHA, "server-initialize"),
    "alive-after-delete": (ALPHA, "server-session-lifecycle"),
    "no-priming": (STABLE, "server-sse-polling"),
}
Verdicts = dict[str, str]  # official check id -> its worst status (pass, warn, fail)

pytestmark = pytest.mark.servers


@pytest.fixture(scope="module")
def sessions_http() -> Iterator[str]:
    """Every mode at once: http://127.0.0.1:PORT/MODE/mcp."""
    with listening([sys.executable, str(SERVER)]) as port:
        yield f"http://127.0.0.1:{port}"


def test_the_conforming_mode_passes_every_check(sessions_http: str, tmp_path: Path) -> None:
    status, verdicts = probe(f"{sessions_http}/conforming/mcp", tmp_path)
    assert status == 0
    assert failing(verdicts) == set()
    assert {verdicts[check] for check in BROKEN.values()} == {"PASS"}


@pytest.mark.parametrize("mode", sorted(BROKEN))
def test_each_broken_session_rule_fails_its_check_and_only_it(
    mode: str, sessions_http: str, tmp_path: Path
) -> None:
    status, verdicts = probe(f"{sessions_http}/{mode}/mcp", tmp_path)
    assert status == 1
    assert failing(verdicts) == {BROKEN[mode]}


def official_scenario(url: str, release: str, scenario: str, out: Path) -> Verdicts:
    """One official scenario of `release` on `url`: each check id's worst status."""
    entry = ROOT / "node_modules" / f"conformance-{release}" / "dist" / "index.js"
    command = [str(NODE), str(entry), "server", "--url", url, "--scenario", scenario, "-o", str(out)]
    subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    found: Verdicts = {}
    order = ["pass", "warn", "fail"]
    for checks in out.glob("*/checks.json"):
        for check in json.loads(checks.read_text()):
            status = WORST.get(check["status"])
            if status is not None and order.index(status) >= order.index(found.get(check["id"], "pass")):
                found[check["id"]] = status
    return found


@pytest.fixture(scope="module")
def official_verdicts(
    sessions_http: str, tmp_path_factory: pytest.TempPathFactory
) -> dict[tuple[str, str], Future[Verdicts]]:
    """By (mode, scenario): the official scenario testing each broken rule, on that mode and on the conforming
    one, started together."""
    out = tmp_path_factory.mktemp("official")
    with ThreadPoolExecutor(max_workers=2) as pool:
        return {
            (mode, scenario): pool.submit(
                official_scenario,
                f"{sessions_http}/{mode}/mcp",
                release,
                scenario,
                out / f"{mode}-{scenario}",
            )
            for broken, (release, scenario) in SCENARIOS.items()
            for mode in (broken, "conforming")
        }


def verdicts_on(url: str, check: str, runs: Verdicts, release: str, out: Path) -> tuple[str | None, str]:
    """Our verdict on the requirement `check` at `url`, and the official one on the check ids ours names."""
    out.mkdir()
    (result,) = [r for r in ours(url, out) if requirement(r) == check]
    details = result["details"]
    assert isinstance(details, dict)
    named = [
        ident
        for scenario in details["official"]["scenarios"]
        if release in scenario["releases"]
        for ident in scenario["checks"]
    ]
    statuses = [runs[ident] for ident in named if ident in runs]
    assert statuses, (named, runs)
    return our_verdict(result), max(statuses, key=["pass", "warn", "fail"].index)


@pytest.mark.parametrize("mode", sorted(SCENARIOS))
def test_a_broken_session_rule_is_failed_by_both_suites(
    mode: str,
    sessions_http: str,
    official_verdicts: dict[tuple[str, str], Future[Verdicts]],
    tmp_path: Path,
) -> None:
    release, scenario = SCENARIOS[mode]
    broken = official_verdicts[(mode, scenario)].result()
    conforming = official_verdicts[("conforming", scenario)].result()
    url = f"{sessions_http}/{mode}/mcp"
    mine, theirs = verdicts_on(url, BROKEN[mode], broken, release, tmp_path / "broken")
    assert (mine, theirs) in {("fail", "fail"), ("fail", "warn")}  # the priming event is a SHOULD for them
    url = f"{sessions_http}/conforming/mcp"
    assert verdicts_on(url, BROKEN[mode], conforming, release, tmp_path / "conforming") == ("pass", "pass")
