"""`toolproof conformance` in the 2026-07-28 era: a server of that era only (stdio and HTTP), a server of both
eras (`--protocol both`, `auto`), a server that breaks one 2026 rule at a time, and side by side with the
official suite's 2026-07-28 requirement set (0.2.0-alpha.12) wherever both give a verdict."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import pytest
from tests.integration.conformance.test_conformance_probe import failing, probe
from tests.integration.mcp.helpers import ROOT, listening

from toolproof.cli import main
from toolproof.mcp.spec import ConnectSpec
from toolproof.model.result import Status
from toolproof.model.server_config import Transport
from toolproof.probe.conformance import probe_server
from toolproof.probe.conformance.checks import RequirementResult
from toolproof.probe.conformance.inputs import ProbeInputs
from toolproof.probe.conformance.tool_calls import MAX_CALLS
from toolproof.probe.conformance.wire import MODERN_ERA, open_link

STATELESS = ROOT / "tests" / "servers" / "stateless_server.py"
REFERENCE = ROOT / "tests" / "servers" / "reference_server.py"
NONCONFORMING = ROOT / "tests" / "servers" / "nonconforming_server.py"
OFFICIAL = ROOT / "node_modules" / "conformance-0.2.0-alpha.12" / "dist" / "index.js"
NODE = ROOT / "node_modules" / ".bin" / "node"
# The rule each mode of stateless_server.py breaks, as the checks that must fail (and no other).
BROKEN = {
    "wrong-codes": "an unsupported version is -32022 with the supported list",
    "no-cache-hints": "cacheable results carry ttlMs and cacheScope",
    "session-id": "no session id is minted or echoed",
    "unchecked-headers": "headers unlike the body are HTTP 400 -32020",
    "empty-contents": "an unknown resource is -32602 with its uri",
    "shuffled-tools": "tools/list order is deterministic",
    "tampered-state": "a tampered requestState is rejected",
    "undeclared-capability": "input requested only for declared capabilities",
    "undeclared-tasks": "tasks served only with the extension declared",
    "wrong-digest": "skill files match their digests and sizes",
    "capability-status": "a missing client capability (-32021) is HTTP 400",
    "unchecked-params": "Mcp-Param headers are validated against the arguments",
    "never-completes": "a retry with the answers completes",
    "input-on-list": "input_required only on tools/call, prompts/get and resources/read",
    "untagged-notifications": "subscription notifications carry its id",
    "unasked-notifications": "a subscription gets only the notifications it asked for",
}
# The official scenario that tests the rule each mode breaks (it has none for session ids or skill digests).
SCENARIOS = {
    "wrong-codes": "server-stateless",
    "no-cache-hints": "caching",
    "unchecked-headers": "http-header-validation",
    "empty-contents": "sep-2164-resource-not-found",
    "shuffled-tools": "tools-list",
    "tampered-state": "input-required-result-tampered-state",
    "undeclared-capability": "input-required-result-capability-check",
    "undeclared-tasks": "tasks-capability-negotiation",
    "capability-status": "server-stateless",
    "unchecked-params": "http-custom-header-server-validation",
    "never-completes": "input-required-result-basic-elicitation",
    "input-on-list": "input-required-result-unsupported-methods",
}
# A check the official suite could not make: its word for a missing fixture tool, the error calling one, or
# (an input_required scenario on prompts/get) the error for a method the server does not serve
UNTESTABLE = re.compile(r"^Not testable|Unknown tool: test_\w+|^JSON-RPC error: Method not found")

pytestmark = pytest.mark.servers


@pytest.fixture(scope="module")
def stateless_http() -> Iterator[str]:
    """Every mode of the 2026-only server at once: http://127.0.0.1:PORT/MODE/mcp."""
    with listening([sys.executable, str(STATELESS)]) as port:
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def reference_http() -> Iterator[str]:
    with listening([sys.executable, str(REFERENCE), "--transport", "streamable-http"]) as port:
        yield f"http://127.0.0.1:{port}/mcp"


def test_a_conforming_2026_server_passes_every_check_over_http(stateless_http: str, tmp_path: Path) -> None:
    status, verdicts = probe(f"{stateless_http}/conforming/mcp", tmp_path, "--protocol", MODERN_ERA)
    assert status == 0
    assert failing(verdicts) == set()
    assert {"server/discover is implemented", "no session id is minted or echoed"} <= set(verdicts)


@pytest.mark.parametrize("mode", sorted(BROKEN))
def test_each_broken_2026_rule_fails_its_check_and_only_it(
    mode: str, stateless_http: str, tmp_path: Path
) -> None:
    status, verdicts = probe(f"{stateless_http}/{mode}/mcp", tmp_path, "--protocol", MODERN_ERA)
    assert status == 1
    assert failing(verdicts) == {BROKEN[mode]}


def test_an_sse_answer_opened_by_a_priming_event_is_read(stateless_http: str, tmp_path: Path) -> None:
    status, verdicts = probe(f"{stateless_http}/priming/mcp", tmp_path, "--protocol", MODERN_ERA)
    assert (status, failing(verdicts)) == (0, set())
    assert verdicts["headers unlike the body are HTTP 400 -32020"] == "PASS"


def test_a_check_group_the_server_breaks_fails_alone_and_every_other_result_is_kept(
    stateless_http: str, tmp_path: Path
) -> None:
    status, verdicts = probe(f"{stateless_http}/drops-sessions/mcp", tmp_path, "--protocol", MODERN_ERA)
    assert status == 1
    assert failing(verdicts) == {"no session"}  # the group that sends Mcp-Session-Id, named after it
    assert verdicts["server/discover is implemented"] == "PASS"  # made over the link before the group
    assert verdicts["headers unlike the body are HTTP 400 -32020"] == "PASS"  # the next group ran
    assert verdicts["a missing client capability (-32021) is HTTP 400"] == "PASS"
    cases = json.loads((tmp_path / "report.json").read_text())["results"]
    broken = next(case for case in cases if case["name"].startswith("no session ["))
    assert broken["failure"]["kind"] == "transport"
    assert "disconnected" in broken["failure"]["message"]


def test_a_list_change_on_a_subscription_passes_the_listen_stream_checks(
    stateless_http: str, tmp_path: Path
) -> None:
    status, verdicts = probe(f"{stateless_http}/list-changes/mcp", tmp_path, "--protocol", MODERN_ERA)
    assert (status, failing(verdicts)) == (0, set())
    listened = (
        "subscriptions/listen is acknowledged first",
        "subscription notifications carry its id",
        "a subscription gets only the notifications it asked for",
        "list changes are sent on a subscription",
    )
    assert {verdicts[check] for check in listened} == {"PASS"}
    status, verdicts = probe(f"{stateless_http}/conforming/mcp", tmp_path, "--protocol", MODERN_ERA)
    assert not set(listened[1:]) & set(verdicts)  # no subscription served: nothing to judge


def test_a_server_that_exits_at_once_is_a_connect_error_whatever_the_protocol(tmp_path: Path) -> None:
    server = f"{sys.executable} -c 'import sys; sys.exit(3)'"
    for protocol in ("auto", MODERN_ERA, "2025-11-25"):
        assert probe(server, tmp_path, "--protocol", protocol) == (2, {"connect": "ERROR"}), protocol


def test_a_server_that_does_not_name_itself_in_result_meta_is_warned_of_that_alone(
    stateless_http: str, tmp_path: Path
) -> None:
    def warned(mode: str) -> dict[str, Any]:
        status, verdicts = probe(f"{stateless_http}/{mode}/mcp", tmp_path, "--protocol", MODERN_ERA)
        assert (status, failing(verdicts)) == (0, set())
        cases = json.loads((tmp_path / "report.json").read_text())["results"]
        return {case["name"].rsplit(" [", 1)[0]: case for case in cases if case["warnings"]}

    conforming, anonymous = warned("conforming"), warned("anonymous")
    assert set(anonymous) - set(conforming) == {"the server names itself in result _meta"}
    assert "only in the result body" in anonymous["the server names itself in result _meta"]["warnings"][0]
    official = anonymous["the server names itself in result _meta"]["details"]["official"]
    assert "server-identifies-in-result-meta" in json.dumps(official)


def test_the_tools_the_inputs_name_are_called_however_many_tools_come_before_them(
    stateless_http: str,
) -> None:
    spec = ConnectSpec(transport=Transport.HTTP, url=f"{stateless_http}/crowded/mcp", request_timeout=10)
    inputs = ProbeInputs(tools={"echo": {"text": "hi"}})
    verdicts: list[RequirementResult] = []
    probed = anyio.run(probe_server, spec, verdicts, inputs, MODERN_ERA)
    assert "echo" in probed.called  # listed after 30 read-only tools; not read-only itself
    assert len(probed.called) == MAX_CALLS  # the cap still holds for the others
    assert [v.check for v in verdicts if v.status is Status.FAIL] == []


def test_mcp_name_is_validated_on_a_tool_the_inputs_name(reference_http: str, tmp_path: Path) -> None:
    inputs = ROOT / "tests" / "servers" / "reference_inputs.yaml"
    status, without = probe(reference_http, tmp_path, "--protocol", MODERN_ERA)
    assert without["Mcp-Name validated"] == "SKIP"  # no tool of the reference server says it is read-only
    status, verdicts = probe(reference_http, tmp_path, "--protocol", MODERN_ERA, "--inputs", str(inputs))
    assert (status, failing(verdicts)) == (0, set())
    assert "Mcp-Name validated" not in verdicts  # its cases are among those of the check below
    assert verdicts["headers unlike the body are HTTP 400 -32020"] == "PASS"


def test_a_2026_only_server_over_stdio_is_probed_in_its_era(tmp_path: Path) -> None:
    server = f"{sys.executable} {STATELESS} conforming"
    status, verdicts = probe(server, tmp_path, "--protocol", "auto")
    assert status == 0
    assert "server/discover is implemented" in verdicts
    assert "stdout holds only MCP messages" in verdicts
    status, verdicts = probe(server, tmp_path, "--protocol", "both")
    assert status == 2  # it does not speak the handshake era
    assert verdicts["connect"] == "ERROR"
    assert verdicts["server/discover is implemented"] == "PASS"


def test_auto_picks_the_newest_era_the_server_speaks(reference_http: str, tmp_path: Path) -> None:
    status, verdicts = probe(reference_http, tmp_path, "--protocol", "auto")
    assert status == 0
    assert "server/discover is implemented" in verdicts and "ping" not in verdicts


def test_a_handshake_only_server_pinned_to_2026_is_a_connect_error_with_a_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = f"{sys.executable} {NONCONFORMING} conforming"
    status, verdicts = probe(server, tmp_path, "--protocol", MODERN_ERA)
    assert (status, verdicts) == (2, {"connect": "ERROR"})
    assert (
        "--protocol auto"
        in json.loads((tmp_path / "report.json").read_text())["results"][0]["failure"]["message"]
    )
    status, verdicts = probe(server, tmp_path, "--protocol", "auto")
    assert status == 0
    assert "ping" in verdicts


def test_a_both_era_server_is_probed_in_each_era_with_the_cross_era_diff(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    status = main(["conformance", "--server", f"{sys.executable} {REFERENCE}", "--protocol", "both",
                   "--json", str(report), "-q"])  # fmt: skip
    results = json.loads(report.read_text())["results"]
    assert status == 0
    eras = {case["name"]: case["protocol"] for case in results}
    assert eras["ping [basic/utilities/ping]"] == "2025-11-25"
    assert eras["server/discover is implemented [2026-07-28/server/discover]"] == MODERN_ERA
    same = {name.rsplit(" [", 1)[0] for name in eras if "in both eras" in name}
    assert same == {
        "tools listed the same in both eras",
        "resources listed the same in both eras",
        "prompts listed the same in both eras",
        "features declared the same in both eras",
    }


def test_the_probe_mirrors_a_listed_tools_x_mcp_header_arguments_in_mcp_param_headers(
    reference_http: str,
) -> None:
    async def call() -> tuple[dict[str, Any], dict[str, Any]]:
        spec = ConnectSpec(transport=Transport.HTTP, url=reference_http, request_timeout=10)
        params = {"name": "test_custom_headers", "arguments": {"region": "us west 1 é"}}
        async with open_link(spec, MODERN_ERA) as link:
            unlisted = await link.request("tools/call", params)  # before tools/list: no Mcp-Param-Region
            await link.request("tools/list", {})
            return unlisted, await link.request("tools/call", params)

    unlisted, listed = anyio.run(call)
    assert unlisted["error"]["code"] == -32020
    assert listed["result"]["content"] == [{"type": "text", "text": "Looked in us west 1 é."}]


# --- side by side with the official suite -----------------------------------------------------------------


def official_run(url: str, out: Path, scenario: str | None = None) -> dict[tuple[str, str], set[str]]:
    """The official suite's 2026-07-28 requirement set (or one scenario of it, in that era) on `url`: the
    statuses each (scenario, check) got, without the checks it could not test (a fixture tool was missing).
    """
    chosen = ["--scenario", scenario, "--spec-version", MODERN_ERA, "--force"] if scenario else []
    command = [str(NODE), str(OFFICIAL), "server", "--url", url, *(chosen or ["--requirements", MODERN_ERA])]
    command += ["-o", str(out)]
    subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    found: dict[tuple[str, str], set[str]] = {}
    for checks in out.glob("server-*/checks.json"):
        scenario = re.sub(r"-\d{4}-\d\d-\d\dT[\d-]+Z$", "", checks.parent.name.removeprefix("server-"))
        for check in json.loads(checks.read_text()):
            if not UNTESTABLE.search(str(check.get("errorMessage") or "")):
                found.setdefault((scenario, check["id"]), set()).add(check["status"])
    return found


def our_verdicts(url: str) -> list[RequirementResult]:
    """Our 2026-07-28 verdicts on `url`, with the official ids each names."""
    verdicts: list[RequirementResult] = []
    spec = ConnectSpec(transport=Transport.HTTP, url=url, request_timeout=10)
    anyio.run(probe_server, spec, verdicts, None, MODERN_ERA)
    return verdicts


def compare(
    ours: list[RequirementResult], theirs: dict[tuple[str, str], set[str]]
) -> dict[str, tuple[str, str]]:
    """Each of our checks the official suite also judged: (our verdict, theirs), pass or fail; theirs fails if
    any of its checks for the requirement failed or warned."""
    judged = {}
    for verdict in ours:
        if verdict.status not in (Status.PASS, Status.FAIL):
            continue
        statuses: set[str] = set()
        for ident in verdict.official:
            scenario, check = ident.split("/", 1)
            statuses |= theirs.get((scenario, check), set()) & {"SUCCESS", "FAILURE", "WARNING"}
        if statuses:
            mine = "pass" if verdict.status is Status.PASS else "fail"
            judged[verdict.check] = (mine, "fail" if statuses & {"FAILURE", "WARNING"} else "pass")
    return judged


@pytest.fixture(scope="module")
def official_verdicts(
    stateless_http: str, reference_http: str, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Future[dict[tuple[str, str], set[str]]]]:
    """One official run per target, started together: the whole requirement set on the reference server and
    the conforming mode, and for each mode that breaks a rule the official suite tests, its scenario."""
    out = tmp_path_factory.mktemp("official")
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = {
            "reference": pool.submit(official_run, reference_http, out / "reference"),
            "conforming": pool.submit(official_run, f"{stateless_http}/conforming/mcp", out / "conforming"),
        }
        for mode, scenario in SCENARIOS.items():
            runs[mode] = pool.submit(official_run, f"{stateless_http}/{mode}/mcp", out / mode, scenario)
        return runs


def test_on_a_both_era_sdk_server_the_verdicts_agree_with_the_official_suite(
    reference_http: str, official_verdicts: dict[str, Future[dict[tuple[str, str], set[str]]]]
) -> None:
    judged = compare(our_verdicts(reference_http), official_verdicts["reference"].result())
    assert {mine for mine, _ in judged.values()} == {"pass"}
    assert {check: theirs for check, (_, theirs) in judged.items()} == {check: "pass" for check in judged}
    assert len(judged) >= 10, judged


@pytest.mark.parametrize("mode", ["conforming", *sorted(SCENARIOS)])
def test_a_broken_rule_is_failed_by_both_suites(
    mode: str, stateless_http: str, official_verdicts: dict[str, Future[dict[tuple[str, str], set[str]]]]
) -> None:
    judged = compare(our_verdicts(f"{stateless_http}/{mode}/mcp"), official_verdicts[mode].result())
    disagreements = {check: verdicts for check, verdicts in judged.items() if verdicts[0] != verdicts[1]}
    assert disagreements == {}
    if mode != "conforming":
        assert judged[BROKEN[mode]] == ("fail", "fail")
