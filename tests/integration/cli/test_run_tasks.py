"""Task cases through `toolproof run` against examples/servers/jobs_server.py: the example suite, which uses
every task block (states, result, input answered by a mock, cancellation by polls and by time), and the
ways a task makes a case fail, each classified while the run goes on."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.integration.cli.conftest import Outcome

pytestmark = pytest.mark.servers

ROOT = Path(__file__).resolve().parents[3]
JOBS = f"server: {{command: {sys.executable}, args: [{ROOT / 'examples/servers/jobs_server.py'}]}}\n"

FAILING = {
    "never finishes": "timeout: 10s\nassert: {tool: endless}",
    "poll cap": "assert: {tool: endless, task: {max_polls: 3}}",
    "failed unexpectedly": "assert: {tool: flaky_job, expect: {contains: [report]}}",
    "wrong states": "assert: {tool: build_report, args: {pages: 1}, expect: {task: {states: [working,"
                    " input_required, completed]}}}",
    "not cancelled": "assert: {tool: build_report, args: {pages: 1}, expect: {task: {status: cancelled}}}",
    "too slow": "assert: {tool: build_report, args: {pages: 2}, expect: {task: {max_ms: 1}}}",
    "no task": "assert: {tool: greet, args: {name: x}, expect: {task: {status: completed}}}",
    "no mock to answer": "assert: {tool: approve_deploy, args: {service: api}}",
}


def test_the_example_task_suite_passes(toolproof: Callable[..., Outcome]) -> None:
    outcome = toolproof(str(ROOT / "examples" / "tasks"), "--protocol", "2026-07-28", "-j", "4")
    assert outcome.status == 0, [(r["name"], r["failure"]) for r in outcome.report["results"]]
    assert len(outcome.verdicts()) == 7
    assert {result["protocol"] for result in outcome.report["results"]} == {"2026-07-28"}


def test_a_task_fails_its_case_classified(
    write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome]
) -> None:
    files = {f"{n}.yaml": f"name: {name}\n{JOBS}{body}\n" for n, (name, body) in enumerate(FAILING.items())}
    outcome = toolproof(str(write_suite(files)), "--protocol", "2026-07-28", "-j", str(len(FAILING)))
    assert outcome.verdicts() == dict.fromkeys(FAILING, "FAIL")

    def failure(name: str) -> dict[str, str]:
        found = outcome.result(name)["failure"]
        assert isinstance(found, dict)
        return found

    never = failure("never finishes")
    assert never["kind"] == "timeout"
    assert never["message"].startswith("timed out after 10s during the request (the task ")
    assert never["message"].endswith("polls of tasks/get)") and "was still working after" in never["message"]
    assert failure("poll cap")["kind"] == "timeout"
    assert "still working after 3 polls of tasks/get (task.max_polls: 3)" in failure("poll cap")["message"]
    flaky = failure("failed unexpectedly")
    assert (flaky["kind"], flaky["check"]) == ("rpc_error", "task.status")
    crashed = "failed with JSON-RPC error -32603: the worker running flaky_job crashed, expected completed"
    assert crashed in flaky["message"]
    assert failure("wrong states")["message"] == (
        "task.states: expected states working -> input_required -> completed, the task went working -> "
        "completed"
    )
    assert outcome.result("wrong states")["line"] == 3  # the line of its expect.task, past name and server
    not_cancelled = failure("not cancelled")
    assert (not_cancelled["kind"], not_cancelled["check"]) == ("expectation", "task.status")
    assert failure("too slow")["message"].startswith("task.max_ms: the task ended after ")
    assert failure("no task")["message"].startswith("task: the call was answered at once, not with a task")
    unanswered = failure("no mock to answer")
    assert unanswered["kind"] == "protocol"
    assert unanswered["message"] == (
        "tools/call approve_deploy: the server asked for elicitation/create, which the client did not offer "
        "(give the case client_capabilities.elicitation to answer it)"
    )
