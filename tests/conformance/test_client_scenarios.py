"""The official conformance suite's client scenarios, every release in RELEASES, with toolproof as the client
(via client_adapter.py; a scenario of the 2026-07-28 era is run with `--protocol auto`).

Every scenario passes, except those whose test server is itself broken (BROKEN_SERVERS) and those that need
what is not built yet (EXPECTED_FAILURES), each with the reason; those must still fail, so neither table can
go stale unnoticed. Outside the auth scenarios, toolproof's own verdict on the suite it ran is checked too:
every case passes, except the calls the scenario means to be refused (REFUSED_CALLS).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tests.conformance.client_adapter import INVALID_HEADER_TOOLS

ROOT = Path(__file__).parents[2]
ADAPTER = Path(__file__).with_name("client_adapter.py")
MODERN_ERA = "2026-07-28"


@dataclass(frozen=True)
class Release:
    """One release of the suite as installed by package.json, and its client scenarios in `list` order."""

    package: str
    scenarios: tuple[str, ...]

    def entry(self) -> str:
        found = ROOT / "node_modules" / self.package / "dist/index.js"
        assert found.is_file(), f"{found} is missing: run `make setup`"
        return str(found)


_SHARED = (
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
)
_AUTH_2025 = (
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
)
RELEASES = {
    "0.1.16": Release(
        "conformance-0.1.16",
        (
            *_SHARED,
            *_AUTH_2025,
            "auth/client-credentials-jwt",
            "auth/client-credentials-basic",
            "auth/cross-app-access-complete-flow",
        ),
    ),
    "0.2.0-alpha.12": Release(
        "conformance-0.2.0-alpha.12",
        (
            *_SHARED,
            "request-metadata",
            *_AUTH_2025,
            "auth/authorization-server-migration",
            "auth/iss-supported",
            "auth/iss-not-advertised",
            "auth/iss-supported-missing",
            "auth/iss-wrong-issuer",
            "auth/iss-unexpected",
            "auth/iss-normalized",
            "auth/metadata-issuer-mismatch",
            "auth/client-credentials-jwt",
            "auth/client-credentials-basic",
            "auth/enterprise-managed-authorization",
            "auth/dpop",
            "auth/dpop-nonce",
            "auth/wif-jwt-bearer",
            "sep-2322-client-request-state",
            "http-standard-headers",
            "http-custom-headers",
            "http-invalid-tool-headers",
            "json-schema-ref-no-deref",
            "json-schema-2020-12-preservation",
            "sep-2640-client-no-prefetch",
            "sep-2640-client-verify-digest",
            "sep-2640-client-verify-size",
            "sep-2640-client-verify-frontmatter",
        ),
    ),
}
# 0.1.16's test authorization server publishes an issuer (http://localhost:PORT) that differs from the URL it
# serves its metadata under (http://localhost:PORT/.well-known/...-server/oauth): RFC 8414 §3.3 makes a
# client refuse such metadata, and the SDK does; 0.2.0-alpha.12 publishes the matching issuer.
# toolproof refuses it saying which value is which: the issuer the metadata gives, the one it was fetched for.
ISSUER_MISMATCH = (
    r"issuer mismatch: (?P<given>http://\S+/oauth) != (?P<expected>http://localhost:\d+)"
    r".*fetched for the authorization server (?P=expected) gives its issuer as (?P=given)"
)
BROKEN_SERVERS = {("0.1.16", "auth/2025-03-26-oauth-metadata-backcompat"): ISSUER_MISMATCH}
EXPECTED_FAILURES: dict[tuple[str, str], str] = {}
# Scenario -> (how many of its cases toolproof must fail, the words each of their failures carries).
REFUSED_CALLS = {
    "http-invalid-tool-headers": (len(INVALID_HEADER_TOOLS), "x-mcp-header declaration is invalid"),
    "sep-2640-client-verify-digest": (1, "skill://pdf-processing/SKILL.md: its SHA-256 is sha256:"),
    "sep-2640-client-verify-size": (1, "skill://pdf-processing/SKILL.md: 139 bytes were read where the"),
    "sep-2640-client-verify-frontmatter": (1, "its frontmatter differs from the skill's entry (description:"),
}
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed", re.MULTILINE)
# Measured timing under load: the retry-timing check warns when the reconnect came later than asked.
TIMING_CHECKS = {"client-sse-retry-timing"}

AT_ONCE = 4  # scenarios run side by side: most of each is waiting on start-up and the suite's own delays
Outcome = tuple[list[dict[str, Any]], str]
RUNS = [(release, scenario) for release, spec in RELEASES.items() for scenario in spec.scenarios]

pytestmark = pytest.mark.servers


def listing(release: Release) -> dict[str, list[str]]:
    """The release's client scenarios, in `list` order, each with the protocol revisions it is tagged with."""
    shown = subprocess.run([release.entry(), "list"], capture_output=True, text=True, check=True).stdout
    client_part = shown.split("Client scenarios", 1)[1].split("\n\n", 1)[0]
    found = re.findall(r"^\s+- (\S+)(?: \[([^\]]*)\])?$", client_part, re.MULTILINE)
    return {name: tags.split(",") if tags else [] for name, tags in found}


@pytest.fixture(scope="module")
def listings() -> dict[str, dict[str, list[str]]]:
    return {name: listing(release) for name, release in RELEASES.items()}


@pytest.mark.parametrize("release", RELEASES)
def test_the_scenario_list_is_the_suites(release: str, listings: dict[str, dict[str, list[str]]]) -> None:
    assert tuple(listings[release]) == RELEASES[release].scenarios


def test_every_expected_failure_is_a_scenario_of_its_release() -> None:
    for release, scenario in [*BROKEN_SERVERS, *EXPECTED_FAILURES]:
        assert scenario in RELEASES[release].scenarios, (release, scenario)


def run_scenario(release: Release, scenario: str, modern: bool, out: Path) -> Outcome:
    """The suite's checks for one scenario, and what toolproof printed."""
    command = f"{sys.executable} {ADAPTER}" + (" --protocol auto" if modern else "")
    subprocess.run(
        [release.entry(), "client", "--command", command, "--scenario", scenario, "-o", str(out)],
        capture_output=True,
        text=True,
        check=False,
        timeout=180,
    )
    (result,) = out.glob(f"{scenario}-*")
    checks = json.loads((result / "checks.json").read_text(encoding="utf-8"))
    return checks, (result / "stdout.txt").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def outcomes(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    listings: dict[str, dict[str, list[str]]],
) -> Iterator[dict[tuple[str, str], Future[Outcome]]]:
    """The checks and toolproof's output of every scenario selected (`-k`), to come: run AT_ONCE at a time,
    in test order, so that each test waits only for its own scenario."""
    selected = {
        (item.callspec.params["release"], item.callspec.params["scenario"])
        for item in request.session.items
        if isinstance(item, pytest.Function) and item.originalname == "test_client_scenario"
    }
    out = tmp_path_factory.mktemp("conformance")
    with ThreadPoolExecutor(AT_ONCE) as pool:
        yield {
            (name, scenario): pool.submit(
                run_scenario,
                RELEASES[name],
                scenario,
                MODERN_ERA in listings[name].get(scenario, []),
                out / str(i),
            )
            for i, (name, scenario) in enumerate(RUNS)
            if (name, scenario) in selected
        }


def failed_checks(checks: list[dict[str, Any]]) -> list[str]:
    """The checks that failed (or warned, outside TIMING_CHECKS), each as `id: details`."""
    return [
        f"{check['id']}: {check.get('errorMessage') or check.get('details') or check['description']}"
        for check in checks
        if check["status"] == "FAILURE" or (check["status"] == "WARNING" and check["id"] not in TIMING_CHECKS)
    ]


@pytest.mark.parametrize(("release", "scenario"), RUNS, ids=[f"{r}:{s}" for r, s in RUNS])
def test_client_scenario(
    release: str, scenario: str, outcomes: dict[tuple[str, str], Future[Outcome]]
) -> None:
    checks, printed = outcomes[release, scenario].result()
    verdicts = [check for check in checks if check["status"] in ("SUCCESS", "FAILURE", "WARNING")]
    failed = failed_checks(checks) if verdicts else ["the suite made no check"]
    if (release, scenario) in BROKEN_SERVERS:
        assert failed, f"{release} {scenario} passes now: remove it from BROKEN_SERVERS"
        assert re.search(BROKEN_SERVERS[release, scenario], printed, re.DOTALL), printed
    elif (release, scenario) in EXPECTED_FAILURES:
        assert failed, f"{release} {scenario} passes now: remove it from EXPECTED_FAILURES"
    else:
        assert not failed, f"{release} {scenario}:\n" + "\n".join(failed) + f"\ntoolproof printed:\n{printed}"
        if not scenario.startswith("auth/"):
            assert_toolproof_verdict(scenario, printed)


def assert_toolproof_verdict(scenario: str, printed: str) -> None:
    """toolproof failed exactly the cases the scenario means it to refuse, and said why."""
    summary = SUMMARY.search(printed)
    assert summary, f"{scenario}: toolproof printed no summary:\n{printed}"
    refused, reason = REFUSED_CALLS.get(scenario, (0, ""))
    assert int(summary[2]) == refused, f"{scenario}: toolproof printed:\n{printed}"
    assert printed.count(reason) >= refused
