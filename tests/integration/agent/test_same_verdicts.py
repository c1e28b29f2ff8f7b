"""One scenario, three ways to observe its run, the same verdicts: `toolproof eval` with the scripted model
and the real notes server, `toolproof eval` through an HTTP target (loop_agent.py: the same loop, script and
server behind HTTP, answering with an inline trace), and `toolproof check` on the trace the first run saved
with `--save-traces`."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.integration.agent.conftest import NOTES
from tests.integration.mcp.helpers import listening

from toolproof.cli import main

pytestmark = pytest.mark.servers
LOOP_AGENT = Path(__file__).with_name("loop_agent.py")
NOTES_SERVER = {"notes": {"command": sys.executable, "args": [str(NOTES)]}}

SCENARIO: dict[str, Any] = {
    "name": "finds the shopping list",
    "id": "shopping-list",
    "prompt": "What do I need to buy?",
    "expect": [
        {"called": {"tool": "get_note", "error": True}},  # a wrong guess first
        {"sequence": ["search_notes", "get_note"]},
        {"not_called": ["delete_note", "clear_notes"]},
        {"tool_input": {"tool": "search_notes", "contains": "shopping"}},
        {"count": {"tool": "get_note", "exactly": 1}},  # fails: it guessed, then read
        {"reply": {"contains": ["milk", "bread"], "case_sensitive": False}},  # fails: no bread
        {"tokens": {"max_total": 500}},  # fails: 570 tokens, however the run is observed
    ],
}

SCRIPT = """\
scenarios:
  shopping-list:
    - steps:
        - tools: [{name: get_note, arguments: {note_id: 42}}]
          usage: {input_tokens: 100, output_tokens: 10}
        - tools: [{name: search_notes, arguments: {query: shopping}}]
          usage: {input_tokens: 120, output_tokens: 10}
        - tools: [{name: get_note, arguments: {note_id: 2}}]
          usage: {input_tokens: 140, output_tokens: 10}
        - reply: "Your shopping note says: Milk, eggs, coffee."
          usage: {input_tokens: 160, output_tokens: 20}
"""


@pytest.fixture(scope="module")
def script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("script") / "script.yaml"
    path.write_text(SCRIPT)
    return path


@pytest.fixture(scope="module")
def loop_agent(script: Path) -> Iterator[str]:
    """The chat URL of loop_agent.py, running the scripted loop over the notes server."""
    with listening([sys.executable, str(LOOP_AGENT), "--script", str(script)]) as port:
        yield f"http://127.0.0.1:{port}/chat"


def verdicts(report: Path) -> list[tuple[Any, ...]]:
    """Per case: name, status, failing-check count, message, and every check's label and status."""
    found = []
    for result in json.loads(report.read_text())["results"]:
        failure = result["failure"] or {}
        outcomes = failure.get("details", {}).get("assertions", [])
        checks = [(item["check"], item["status"]) for item in outcomes]
        found.append((result["name"], result["status"], failure.get("check"), failure.get("message"), checks))
    return found


def toolproof(*argv: str | Path) -> int:
    return main([*map(str, argv), "-q"])


def write_case(directory: Path, how: dict[str, Any]) -> Path:
    """The scenario, with `how` the agent is reached (its servers, or a target), in its own directory."""
    directory.mkdir()
    path = directory / "shopping.yaml"
    path.write_text(json.dumps({**SCENARIO, **how}))  # JSON is YAML
    return path


def test_loop_http_target_and_saved_trace_agree(tmp_path: Path, script: Path, loop_agent: str) -> None:
    live = write_case(tmp_path / "live", {"servers": NOTES_SERVER})
    body = {"input": "{user_message}", "scenario": "shopping-list"}
    target = {"url": loop_agent, "body": body, "response_path": "reply"}
    over_http = write_case(tmp_path / "http", {"target": target})
    traces = tmp_path / "traces"

    live_report, http_report, checked_report = (tmp_path / f"{way}.json" for way in ("live", "http", "check"))
    scripted = ["--provider", "scripted", "--script", script]
    assert toolproof("eval", live, *scripted, "--save-traces", traces, "--json", live_report) == 1
    assert toolproof("eval", over_http, "--json", http_report) == 1
    assert toolproof("check", live, "--trace", traces, "--by-case", "--json", checked_report) == 1

    expected = verdicts(live_report)
    ((name, status_text, failing, message, checks),) = expected
    assert (name, status_text, failing) == ("finds the shopping list", "FAIL", "3 of 7")
    assert [state for _, state in checks] == ["PASS"] * 4 + ["FAIL"] * 3
    assert "570" in message and "bread" in message
    assert verdicts(http_report) == expected
    assert verdicts(checked_report) == expected


def test_every_trial_saves_its_own_trace(tmp_path: Path, script: Path) -> None:
    live, traces = write_case(tmp_path / "case", {"servers": NOTES_SERVER}), tmp_path / "traces"
    eval_report, checked_report = tmp_path / "eval.json", tmp_path / "checked.json"
    argv = ["eval", live, "--provider", "scripted", "--script", script, "--trials", "2", "-j", "1"]
    assert toolproof(*argv, "--save-traces", traces, "--json", eval_report) == 1
    assert len(list(traces.glob("*.trace.json"))) == 2
    assert toolproof("check", live, "--trace", traces, "--by-case", "--json", checked_report) == 1
    checked = verdicts(checked_report)
    assert [(name, status) for name, status, *_ in checked] == [
        ("finds the shopping list [trial 1]", "FAIL"),
        ("finds the shopping list [trial 2]", "FAIL"),
    ]
    first, second = checked
    assert first[2] == "3 of 7" and first[2:] == second[2:]  # the same failing checks in both trials
    (combined,) = json.loads(eval_report.read_text())["results"]
    assert combined["trials"]["statuses"] == ["FAIL", "FAIL"]
    assert f"trial 1: {first[3]}" in combined["failure"]["message"]


def test_a_trace_that_cannot_be_written_warns_and_the_verdict_stands(
    tmp_path: Path, script: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    live, taken = write_case(tmp_path / "case", {"servers": NOTES_SERVER}), tmp_path / "taken"
    taken.write_text("a file, not a directory")
    report = tmp_path / "report.json"
    argv = ["eval", live, "--provider", "scripted", "--script", script, "--json", report]
    assert toolproof(*argv, "--save-traces", taken) == 1
    assert "toolproof: could not write" in capsys.readouterr().err
    assert verdicts(report)[0][1:3] == ("FAIL", "3 of 7")


LOOPING_SCRIPT = """\
scenarios:
  looping:
    - steps:
        - tools: [{name: list_notes, arguments: {}}]
        - tools: [{name: list_notes, arguments: {}}]
        - tools: [{name: list_notes, arguments: {}}]
"""


@pytest.mark.parametrize("by_case", [True, False])
def test_a_run_that_stopped_early_fails_again_from_its_saved_trace(tmp_path: Path, by_case: bool) -> None:
    script = tmp_path / "looping.yaml"
    script.write_text(LOOPING_SCRIPT)
    looping = {"name": "loops", "id": "looping", "prompt": "List my notes", "agent": {"max_steps": 2}}
    expect = [{"called": "list_notes"}]  # it holds: only the stop fails the run
    case = write_case(tmp_path / "case", {**looping, "servers": NOTES_SERVER, "expect": expect})
    traces, live_report, checked_report = tmp_path / "traces", tmp_path / "live.json", tmp_path / "check.json"
    argv = ["eval", case, "--provider", "scripted", "--script", script, "--save-traces", traces]
    assert toolproof(*argv, "--json", live_report) == 1
    ((_, status, failing, message, _),) = verdicts(live_report)
    assert (status, failing) == ("FAIL", "max_steps")
    assert "max_steps reached" in message
    shape = ["--by-case"] if by_case else []
    assert toolproof("check", case, "--trace", traces, *shape, "--json", checked_report) == 1
    if by_case:
        assert verdicts(checked_report) == verdicts(live_report)
    else:
        found = [(name, state) for name, state, *_ in verdicts(checked_report)]
        stopped = ("loops › run stopped early (max_steps)", "FAIL")
        assert found == [("loops › list_notes called", "PASS"), stopped]
