"""`toolproof conformance` and the official conformance suite's server scenarios, side by side, on the
reference server (the official fixtures on the Python SDK) and on server-everything, over HTTP and stdio.

The official suite runs once per target and release (it speaks HTTP only: a stdio run of ours is compared with
the official run on the same server over HTTP). Wherever both give a verdict on a requirement, they agree, or
the pair is in DISAGREE with its reason (the README's conformance section lists the same).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from tests.integration.conformance.test_conformance_probe import SERVE_EVERYTHING
from tests.integration.mcp.helpers import ROOT, listening

from toolproof.cli import main
from toolproof.mcp.spec import HANDSHAKE_ERA
from toolproof.probe.conformance.official import ALPHA, STABLE
from toolproof.probe.conformance.wire import MODERN_ERA

REFERENCE = ROOT / "tests" / "servers" / "reference_server.py"
INPUTS = ROOT / "tests" / "servers" / "reference_inputs.yaml"
NODE = ROOT / "node_modules" / ".bin" / "node"
MODERN = f"{ALPHA}@{MODERN_ERA}"  # the key of 0.2.0-alpha.12's run in the 2026-07-28 era
LISTED = re.compile(r"^\s+- (?P<scenario>\S+) \[(?P<eras>[^]]+)\]$", re.MULTILINE)
RUN_DIR = re.compile(r"^server-(?P<scenario>.+)-\d{4}-\d{2}-\d{2}T")
WORST = {"FAILURE": "fail", "WARNING": "warn", "SUCCESS": "pass"}
# An official failure that comes from a fixture the server does not have, not from the requirement.
MISSING_FIXTURE = re.compile(
    r"test_\w+|test://|not found|(^|; )(No|Missing) \w+ (content|notifications)|did not request"
)
# (target, requirement) -> why the two verdicts differ; the README's conformance section lists each.
DISAGREE = {
    (
        "reference",
        "SSE priming event (SEP-1699)",
    ): "the official scenario announces protocol 2025-03-26 on its POST, "
    "and the SDK primes only the streams of 2025-11-25 clients",
}

Runs = dict[str, dict[str, dict[str, tuple[str, str]]]]  # by release: what official() found

pytestmark = pytest.mark.servers


def official(url: str, release: str, out: Path, *flags: str) -> dict[str, dict[str, tuple[str, str]]]:
    """Every server scenario of `release` (`--suite all`: the pending ones too; `flags` may pin the era) on
    `url`: by scenario, each check id's worst status and the message of its first failure."""
    entry = ROOT / "node_modules" / f"conformance-{release}" / "dist" / "index.js"
    command = [str(NODE), str(entry), "server", "--url", url, "--suite", "all", "-o", str(out), *flags]
    subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    found: dict[str, dict[str, tuple[str, str]]] = {}
    for checks in sorted(out.glob("server-*/checks.json")):
        matched = RUN_DIR.match(checks.parent.name)
        assert matched, checks
        verdicts = found.setdefault(matched["scenario"], {})
        for check in json.loads(checks.read_text()):
            status = WORST.get(check["status"])
            if status is None:
                continue
            known = verdicts.get(check["id"], ("pass", ""))
            if ["pass", "warn", "fail"].index(status) >= ["pass", "warn", "fail"].index(known[0]):
                verdicts[check["id"]] = (status, check.get("errorMessage") or "")
    return found


def ours(server: str, out: Path, *flags: str) -> list[dict[str, object]]:
    report = out / "toolproof.json"
    main(["conformance", "--server", server, "--json", str(report), "-q", *flags])
    results: list[dict[str, object]] = json.loads(report.read_text())["results"]
    return results


def requirement(result: dict[str, object]) -> str:
    return str(result["name"]).rsplit(" [", 1)[0]


def our_verdict(result: dict[str, object]) -> str | None:
    if result["status"] == "SKIP":
        return None
    if result["status"] == "PASS":
        return "warn" if result["warnings"] else "pass"
    return "fail"


def their_verdict(
    runs: dict[str, dict[str, tuple[str, str]]], scenario: str, checks: list[str], fixtures: bool
) -> str | None:
    """The official verdict on the checks of `scenario` that judge the requirement; None when none ran, or
    when (without `fixtures`) a failure comes from a fixture the server lacks."""
    found = [runs.get(scenario, {}).get(check) for check in checks]
    statuses = [each for each in found if each is not None]
    if not statuses:
        return None
    worst = max(statuses, key=lambda each: ["pass", "warn", "fail"].index(each[0]))
    if worst[0] != "pass" and not fixtures and MISSING_FIXTURE.search(worst[1]):
        return None
    return worst[0]


def compare(
    target: str,
    results: list[dict[str, object]],
    runs: Runs,
    fixtures: bool,
) -> tuple[list[str], set[str]]:
    """The disagreements not in DISAGREE, and the official scenarios some result of ours names."""
    problems, named = [], set()
    for result in results:
        details = result.get("details") or {}
        assert isinstance(details, dict) and "official" in details, result["name"]
        mine = our_verdict(result)
        for scenario in details["official"]["scenarios"]:
            for release in scenario["releases"]:
                if release not in runs:
                    continue
                named.add(scenario["scenario"])
                theirs = their_verdict(runs[release], scenario["scenario"], scenario["checks"], fixtures)
                if mine and theirs and mine != theirs and (target, requirement(result)) not in DISAGREE:
                    problems.append(f"{requirement(result)}: official {release} {theirs}, toolproof {mine}")
    return problems, named


@contextmanager
def served(command: list[str], host: str, releases: tuple[str, ...], out: Path) -> Iterator[tuple[str, Runs]]:
    """The server `command` over Streamable HTTP, its URL and each release's official run on it."""
    with listening(command) as port:
        url = f"http://{host}:{port}/mcp"
        yield url, {release: official(url, release, out / release) for release in releases}


def scenario_eras(release: str) -> dict[str, set[str]]:
    """Each server scenario of `release` and the protocol eras it runs in (`list --server`)."""
    entry = ROOT / "node_modules" / f"conformance-{release}" / "dist" / "index.js"
    listing = subprocess.run(
        [str(NODE), str(entry), "list", "--server"], capture_output=True, text=True, timeout=60, check=True
    )
    return {m["scenario"]: set(m["eras"].split(",")) for m in LISTED.finditer(listing.stdout)}


def same_verdict(results: list[dict[str, object]], runs: Runs) -> set[str]:
    """The official scenarios some result of ours names with the verdict the scenario's checks gave."""
    agreeing = set()
    for result in results:
        details = result.get("details") or {}
        assert isinstance(details, dict)
        mine = our_verdict(result)
        for scenario in details["official"]["scenarios"]:
            for release in set(scenario["releases"]) & set(runs):
                theirs = their_verdict(runs[release], scenario["scenario"], scenario["checks"], True)
                if mine is not None and mine == theirs:
                    agreeing.add(scenario["scenario"])
    return agreeing


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Runs]]:
    """The reference server over HTTP with the official runs on it: 0.1.16's, 0.2.0-alpha.12's (each scenario
    in its default era) and alpha.12's in the 2026-07-28 era (MODERN)."""
    command = [sys.executable, str(REFERENCE), "--transport", "streamable-http"]
    out = tmp_path_factory.mktemp("reference")
    with served(command, "127.0.0.1", (STABLE, ALPHA), out) as (url, runs):
        runs[MODERN] = official(url, ALPHA, out / "modern", "--spec-version", MODERN_ERA)
        yield url, runs


@pytest.fixture(scope="module")
def everything(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Runs]]:
    command = [sys.executable, "-c", SERVE_EVERYTHING]
    with served(command, "localhost", (STABLE,), tmp_path_factory.mktemp("everything")) as found:
        yield found


@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_on_the_reference_server_every_official_scenario_is_named_and_the_verdicts_agree(
    reference: tuple[str, Runs], transport: str, tmp_path: Path
) -> None:
    url, runs = reference
    server = url if transport == "http" else f"{sys.executable} {REFERENCE}"
    results = ours(server, tmp_path, "--inputs", str(INPUTS))
    assert [r["name"] for r in results if r["status"] == "FAIL"] == []
    problems, named = compare("reference", results, runs, fixtures=True)
    assert problems == []
    stable = set(runs[STABLE])
    http_only = {"dns-rebinding-protection", "server-sse-polling", "server-sse-multiple-streams"}
    assert stable - named == (set() if transport == "http" else http_only)
    assert len(stable) == 32


def test_on_the_reference_server_each_alpha_scenario_of_both_eras_is_named_with_the_same_verdict(
    reference: tuple[str, Runs], tmp_path: Path
) -> None:
    url, runs = reference
    results = ours(url, tmp_path, "--inputs", str(INPUTS), "--protocol", "both")
    assert [r["name"] for r in results if r["status"] == "FAIL"] == []
    eras = scenario_eras(ALPHA)
    for era, theirs in (
        (HANDSHAKE_ERA, {STABLE: runs[STABLE], ALPHA: runs[ALPHA]}),
        (MODERN_ERA, {ALPHA: runs[MODERN]}),
    ):
        mine = [r for r in results if r["protocol"] == era]
        problems, _ = compare("reference", mine, theirs, fixtures=True)
        assert problems == [], era
        expected = {scenario for scenario, its in eras.items() if era in its}
        assert expected <= set(theirs[ALPHA])  # the official run ran each
        assert expected - same_verdict(mine, {ALPHA: theirs[ALPHA]}) == set(), era
    assert len({s for s, its in eras.items() if MODERN_ERA in its}) == 40


@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_on_server_everything_the_verdicts_agree_where_the_official_one_needs_no_fixture(
    everything: tuple[str, Runs], transport: str, tmp_path: Path
) -> None:
    url, runs = everything
    results = ours(url if transport == "http" else "mcp-server-everything", tmp_path)
    problems, named = compare("everything", results, runs, fixtures=False)
    assert problems == []
    # the requirements server-everything's own tools show: images from get-tiny-image, embedded resources
    verdicts = {requirement(r): r["status"] for r in results}
    assert (
        verdicts["image content is well-formed"]
        == verdicts["embedded resource content is well-formed"]
        == "PASS"
    )
    assert {"tools-call-image", "resources-read-text", "prompts-get-simple"} <= named
