"""`toolproof conformance --protocol 2026-07-28` on the tasks (SEP-2663) and skills (SEP-2640) extensions: a
server that breaks one of their rules fails exactly the check for it, and on the reference server (the
official fixtures on the Python SDK) every extension scenario of the official suite (0.2.0-alpha.12) is named
by a result of ours, with the same verdict."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from tests.integration.conformance.test_conformance_2026 import official_run
from tests.integration.conformance.test_conformance_probe import failing
from tests.integration.conformance.test_official_side_by_side import our_verdict
from tests.integration.mcp.helpers import ROOT, listening

from toolproof.cli import main
from toolproof.probe.conformance.official import ALPHA
from toolproof.probe.conformance.wire import MODERN_ERA

BAD = ROOT / "tests" / "servers" / "bad_extensions_server.py"
REFERENCE = ROOT / "tests" / "servers" / "reference_server.py"
INPUTS = ROOT / "tests" / "servers" / "reference_extensions_inputs.yaml"
JOBS = ROOT / "examples" / "servers" / "jobs_server.py"
SKILLS = ROOT / "examples" / "servers" / "skills_server.py"
# The tools of jobs_server.py the probe may call (endless never ends: it is left out).
JOBS_INPUTS = "tools:\n  build_report: {pages: 1}\n  approve_deploy: {service: web}\n  flaky_job: {}\n"
# The check each mode of bad_extensions_server.py fails (and no other).
BROKEN = {
    "ungated-tasks": "tasks methods need the client's extension (-32021)",
    "unknown-task": "an unknown task is -32602",
    "tasks-list": "removed tasks methods are -32601",
    "legacy-fields": "a task-augmented call returns a flat CreateTaskResult",
    "request-state": "tasks/get reports the task until it ends",
    "empty-result": "an ended task carries its result or its error",
    "eager-tasks": "a task is made only for a client with the extension",
    "update-envelope": "input requests are answered with tasks/update",
    "leaked-state": "input asked before a task stays out of it",
    "cancel-envelope": "tasks/cancel acks with an empty result",
    "unrouted": "tasks/get is routed by Mcp-Name",
    "bad-notification": "task status notifications are well-formed",
    "undeclared-skills": "skills served only with the extension declared",
    "skills-envelope": "the skills capability is an inline settings object beside resources",
    "no-list-hints": "skills/list pages",
    "incomplete-entry": "skill entries are well-formed",
    "unknown-skill": "skills/get answers with the listed entry",
    "no-get-hints": "skills/get carries cache hints",
    "frontmatter-drift": "each SKILL.md has its entry's frontmatter",
    "flat-directory": "skill directories are read with resources/directory/read",
}
WARNED = {"plain-manifest": "SKILL.md is listed as markdown with its skill's name and description"}
EXTENSION_SCENARIOS = (
    "tasks-lifecycle",
    "tasks-capability-negotiation",
    "tasks-wire-fields",
    "tasks-request-state-removal",
    "tasks-mrtr-input",
    "tasks-request-headers",
    "tasks-dispatch-and-envelope",
    "tasks-status-notifications",
    "tasks-required-task-error",
    "tasks-mrtr-composition",
    "sep-2640-skills-directory",
    "sep-2640-skills-enumeration",
    "sep-2640-skills-manifest",
)
# requirement -> why toolproof's verdict differs from the official one on the reference server (the README's
# conformance section lists the same).
DISAGREE: dict[str, str] = {}

pytestmark = pytest.mark.servers


def report(server: str, tmp_path: Path) -> list[dict[str, Any]]:
    """Our 2026-07-28 results on `server`, with the reference fixtures' task tools as inputs."""
    out = tmp_path / "report.json"
    main(["conformance", "--server", server, "--protocol", MODERN_ERA, "--inputs", str(INPUTS),
          "--json", str(out), "-q"])  # fmt: skip
    results: list[dict[str, Any]] = json.loads(out.read_text())["results"]
    return results


def verdicts(results: list[dict[str, Any]]) -> dict[str, str]:
    return {str(result["name"]).rsplit(" [", 1)[0]: str(result["status"]) for result in results}


@pytest.fixture(scope="module")
def bad_http() -> Iterator[str]:
    """Every mode of bad_extensions_server.py at once: http://127.0.0.1:PORT/MODE/mcp."""
    with listening([sys.executable, str(BAD)]) as port:
        yield f"http://127.0.0.1:{port}"


def test_the_conforming_mode_passes_every_extension_check(bad_http: str, tmp_path: Path) -> None:
    results = report(f"{bad_http}/conforming/mcp", tmp_path)
    found = verdicts(results)
    assert failing(found) == set()
    assert [r["name"] for r in results if r["warnings"]] == []
    notifications = BROKEN["bad-notification"]
    assert found.pop(notifications) == "SKIP"  # the fixtures send none
    judged = [check for check in [*BROKEN.values(), *WARNED.values()] if check != notifications]
    assert {found[check] for check in judged} == {"PASS"}


@pytest.mark.parametrize("mode", sorted(BROKEN))
def test_each_broken_extension_rule_fails_its_check_and_only_it(
    mode: str, bad_http: str, tmp_path: Path
) -> None:
    results = report(f"{bad_http}/{mode}/mcp", tmp_path)
    assert failing(verdicts(results)) == {BROKEN[mode]}


def test_a_skill_manifest_that_is_not_markdown_warns(bad_http: str, tmp_path: Path) -> None:
    results = report(f"{bad_http}/plain-manifest/mcp", tmp_path)
    assert failing(verdicts(results)) == set()
    warned = {str(r["name"]).rsplit(" [", 1)[0] for r in results if r["warnings"]}
    assert warned == {WARNED["plain-manifest"]}


def test_a_tool_that_never_answers_a_task_call_is_left_out_and_the_others_are_checked(
    bad_http: str, tmp_path: Path
) -> None:
    found = verdicts(report(f"{bad_http}/hung-task-call/mcp", tmp_path))
    assert failing(found) == set()
    assert found["an ended task carries its result or its error"] == "PASS"  # failing_job's, ...


def test_tasks_are_followed_over_stdio_where_routing_headers_do_not_apply(tmp_path: Path) -> None:
    found = verdicts(report(f"{sys.executable} {BAD} conforming", tmp_path))
    assert failing(found) == set()
    assert found["input requests are answered with tasks/update"] == "PASS"
    assert found["tasks/get is routed by Mcp-Name"] == "SKIP"


def test_without_a_tool_that_makes_tasks_the_task_checks_are_not_applicable(
    bad_http: str, tmp_path: Path
) -> None:
    out = tmp_path / "report.json"
    main(["conformance", "--server", f"{bad_http}/conforming/mcp", "--protocol", MODERN_ERA,
          "--json", str(out), "-q"])  # fmt: skip
    results = json.loads(out.read_text())["results"]
    skipped = {str(r["name"]).rsplit(" [", 1)[0]: r["reason"] for r in results if r["status"] == "SKIP"}
    assert "--inputs" in skipped["a task-augmented call returns a flat CreateTaskResult"]
    assert verdicts(results)["an unknown task is -32602"] == "PASS"


def test_the_example_extension_servers_pass_every_2026_check(tmp_path: Path) -> None:
    inputs = tmp_path / "inputs.yaml"
    inputs.write_text(JOBS_INPUTS)
    out = tmp_path / "report.json"
    with listening([sys.executable, str(JOBS), "--transport", "streamable-http"]) as port:
        status = main(["conformance", "--server", f"http://127.0.0.1:{port}/mcp", "--protocol", MODERN_ERA,
                       "--inputs", str(inputs), "--json", str(out), "-q"])  # fmt: skip
    jobs = verdicts(json.loads(out.read_text())["results"])
    assert (status, failing(jobs)) == (0, set())
    assert jobs["tasks methods need the client's extension (-32021)"] == "PASS"
    assert jobs["a task-augmented call returns a flat CreateTaskResult"] == "PASS"
    status = main(["conformance", "--server", f"{sys.executable} {SKILLS}", "--protocol", MODERN_ERA,
                   "--json", str(out), "-q"])  # fmt: skip
    results = json.loads(out.read_text())["results"]
    skills = verdicts(results)
    assert (status, failing(skills)) == (0, set())
    assert [r["name"] for r in results if r["warnings"]] == []
    assert skills["skills/get carries cache hints"] == "PASS"
    assert skills["skills/list pages"] == "PASS"


# --- side by side with the official suite's extension scenarios -------------------------------------------


Official = dict[tuple[str, str], set[str]]


@pytest.fixture(scope="module", autouse=True)
def reference(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[Future[Official]]]]:
    """The reference server over HTTP, and the official extension scenarios run on it (each once) in the
    background while the module's other tests run: their statuses by (scenario, check)."""
    out = tmp_path_factory.mktemp("official-extensions")
    with listening([sys.executable, str(REFERENCE), "--transport", "streamable-http"]) as port:
        url = f"http://127.0.0.1:{port}/mcp"
        with ThreadPoolExecutor(max_workers=2) as pool:
            yield url, [pool.submit(official_run, url, out / name, name) for name in EXTENSION_SCENARIOS]


def their_verdict(theirs: dict[tuple[str, str], set[str]], scenario: dict[str, Any]) -> str | None:
    statuses = set().union(
        *(theirs.get((scenario["scenario"], check), set()) for check in scenario["checks"])
    )
    if statuses & {"FAILURE"}:
        return "fail"
    if statuses & {"WARNING"}:
        return "warn"
    return "pass" if "SUCCESS" in statuses else None


def test_on_the_reference_server_every_extension_scenario_is_named_with_the_same_verdict(
    reference: tuple[str, list[Future[Official]]], tmp_path: Path
) -> None:
    url, runs = reference
    results = report(url, tmp_path)
    theirs: Official = {}
    for run in runs:
        theirs |= run.result()
    assert failing(verdicts(results)) == set()
    named: dict[str, set[str | None]] = {}
    problems = []
    for result in results:
        requirement = str(result["name"]).rsplit(" [", 1)[0]
        for scenario in result["details"]["official"]["scenarios"]:
            if scenario["scenario"] not in EXTENSION_SCENARIOS or ALPHA not in scenario["releases"]:
                continue
            mine, official = our_verdict(result), their_verdict(theirs, scenario)
            named.setdefault(scenario["scenario"], set()).add(official)
            if mine != official and requirement not in DISAGREE:
                problems.append(
                    f"{requirement}: {scenario['scenario']} official {official}, toolproof {mine}"
                )
    assert problems == []
    assert set(named) == set(EXTENSION_SCENARIOS)
    # every scenario the official suite judges on the reference server passes there (notifications: pending)
    assert {scenario: verdict for scenario, verdict in named.items() if verdict != {"pass"}} == {
        "tasks-status-notifications": {None}
    }
