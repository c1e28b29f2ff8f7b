"""The official conformance suite's client scenarios, with toolproof as the client (via client_adapter.py).

Every scenario passes, except those whose test server is itself broken (BROKEN_SERVERS, each with the
reason); those must still fail, and for that reason, so the list cannot go stale unnoticed.
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

ADAPTER = Path(__file__).with_name("client_adapter.py")
SCENARIOS = [
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
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
    "auth/resource-mismatch",
    "auth/pre-registration",
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/client-credentials-jwt",
    "auth/client-credentials-basic",
]
# In 0.1.13 these scenarios' protected-resource metadata names the authorization server
# http://localhost:PORT/tenant1, whose metadata then gives its issuer as http://localhost:PORT. RFC 8414 §3.3
# makes a client reject metadata whose issuer differs from the identifier it was fetched for, and the SDK
# does (later releases of the suite publish the matching issuer).
ISSUER_MISMATCH = "Authorization server metadata issuer mismatch"
BROKEN_SERVERS = {"auth/metadata-var2": ISSUER_MISMATCH, "auth/metadata-var3": ISSUER_MISMATCH}
# Measured timing under load: the retry-timing check warns when the reconnect came later than asked.
TIMING_CHECKS = {"client-sse-retry-timing"}

AT_ONCE = 3  # scenarios run side by side: most of each is waiting on start-up and the suite's own delays
Outcome = tuple[list[dict[str, Any]], str]

pytestmark = pytest.mark.servers


def conformance() -> str:
    found = Path(__file__).parents[2] / "node_modules/@modelcontextprotocol/conformance/dist/index.js"
    assert found.is_file(), f"{found} is missing: run `make setup`"
    return str(found)


def test_the_scenario_list_is_the_suites() -> None:
    listing = subprocess.run([conformance(), "list"], capture_output=True, text=True, check=True).stdout
    client_part = listing.split("Client scenarios", 1)[1]
    assert re.findall(r"^\s+- (\S+)$", client_part, re.MULTILINE) == SCENARIOS


def run_scenario(scenario: str, out: Path) -> Outcome:
    """The suite's checks for one scenario, and what toolproof printed."""
    command = f"{sys.executable} {ADAPTER}"
    subprocess.run(
        [conformance(), "client", "--command", command, "--scenario", scenario, "-o", str(out)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    (result,) = out.glob(f"{scenario}-*")
    checks = json.loads((result / "checks.json").read_text(encoding="utf-8"))
    return checks, (result / "stdout.txt").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Outcome]]:
    """Every scenario's checks and toolproof's output, run AT_ONCE at a time."""
    out = tmp_path_factory.mktemp("conformance")
    with ThreadPoolExecutor(AT_ONCE) as pool:
        futures = {name: pool.submit(run_scenario, name, out / str(i)) for i, name in enumerate(SCENARIOS)}
        yield {name: future.result() for name, future in futures.items()}


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_client_scenario(scenario: str, outcomes: dict[str, Outcome]) -> None:
    checks, printed = outcomes[scenario]
    verdicts = [check for check in checks if check["status"] in ("SUCCESS", "FAILURE", "WARNING")]
    assert verdicts, f"{scenario}: the suite made no check"
    failed = [
        f"{check['id']}: {check.get('details') or check['description']}"
        for check in verdicts
        if check["status"] == "FAILURE" or (check["status"] == "WARNING" and check["id"] not in TIMING_CHECKS)
    ]
    if scenario in BROKEN_SERVERS:
        assert failed, f"{scenario} passes now: remove it from BROKEN_SERVERS"
        assert BROKEN_SERVERS[scenario] in printed
    else:
        assert not failed, f"{scenario}:\n" + "\n".join(failed) + f"\ntoolproof printed:\n{printed}"
