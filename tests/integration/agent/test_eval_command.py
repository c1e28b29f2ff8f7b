"""`toolproof eval` end to end: scripted models over the notes server; judged, repeated, recorded."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from tests.integration.agent.conftest import NOTES, ROOT

from toolproof.cli import main

LIVE = ROOT / "examples" / "agent" / "live"

CASE = f"""\
name: shopping
id: shopping
servers:
  notes: {{command: python, args: ["{NOTES}"]}}
prompt: What do I need to buy?
expect:
  - called: {{tool: get_note, args: {{note_id: 2}}}}
  - reply: {{contains: milk}}
"""

SCRIPT = """\
scenarios:
  shopping:
    - steps:
        - tools: [{name: get_note, arguments: {note_id: 2}}]
        - reply: REPLY
"""


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(textwrap.dedent(text))
    return path


def toolproof_eval(tmp_path: Path, *argv: str | Path) -> tuple[int, dict[str, Any]]:
    report = tmp_path / "report.json"
    status = main(["eval", *map(str, argv), "--json", str(report), "-q"])
    return status, json.loads(report.read_text()) if report.exists() else {}


def scripted(tmp_path: Path, reply: str) -> tuple[Path, Path]:
    cases = tmp_path / "cases"
    cases.mkdir(exist_ok=True)
    case = write(cases, "shopping.yaml", CASE)
    script = write(tmp_path, "script.yaml", SCRIPT.replace("REPLY", reply))
    return case, script


def test_the_bundled_live_example_passes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    status, report = toolproof_eval(tmp_path, LIVE, "--config", LIVE / "toolproof.yaml")
    assert status == 0
    assert [r["status"] for r in report["results"]] == ["PASS"]
    assert report["results"][0]["name"] == "notes assistant"


def test_a_failing_check_exits_one_and_says_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case, script = scripted(tmp_path, "You need nothing.")
    status, report = toolproof_eval(tmp_path, case, "--provider", "scripted", "--script", script)
    assert status == 1
    (result,) = report["results"]
    assert result["status"] == "FAIL"
    assert "response contains: milk" in result["failure"]["message"]
    assert "FAIL" in capsys.readouterr().out


def test_max_steps_is_a_classified_failure(tmp_path: Path) -> None:
    case, script = scripted(tmp_path, "Milk, eggs.")
    status, report = toolproof_eval(
        tmp_path, case, "--provider", "scripted", "--script", script, "--max-steps", "1"
    )
    assert status == 1
    failure = report["results"][0]["failure"]
    assert failure["kind"] == "expectation"
    assert failure["check"] == "max_steps"
    assert failure["message"].startswith("no final answer in turn 1 after 1 model steps")


def test_usage_and_load_errors_exit_two(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case, script = scripted(tmp_path, "Milk.")
    assert main(["eval", str(case)]) == 2  # no provider anywhere: the case cannot run
    assert main(["eval", str(tmp_path / "missing.yaml"), "--provider", "scripted"]) == 2
    assert "no such file" in capsys.readouterr().err
    bad = write(tmp_path, "bad.yaml", "name: x\nprompt: hi\nservers: {notes: {comand: python}}\nexpect: []\n")
    status, report = toolproof_eval(tmp_path, bad, "--provider", "scripted", "--script", script)
    assert status == 2
    assert "servers.notes.comand" in report["results"][0]["failure"]["message"]
    config = write(tmp_path, "toolproof.yaml", "provider: scripted\ntrails: 3\n")
    assert main(["eval", str(case), "--config", str(config)]) == 2
    assert "trails: unknown key" in capsys.readouterr().err


JUDGED = f"""\
name: judged
id: judged
servers:
  notes: {{command: python, args: ["{NOTES}"]}}
prompt: What do I need to buy?
judge_context: {{prompt: true, tool_outputs: true, tool_catalog: true}}
expect:
  - judge: {{criteria: Lists the shopping items, threshold: 0.8, not: [Invents items]}}
"""

JUDGE_SCRIPT = """\
scenarios:
  judged:
    - steps:
        - reply: '{"results": [{"id": "agent-check-1", "score": SCORE, "reason": "lists them"},
                   {"id": "agent-check-1-constraint-1", "pass": true, "reason": "nothing invented"}]}'
"""


@pytest.mark.parametrize(("score", "status", "expected"), [("0.9", "PASS", 0), ("0.5", "FAIL", 1)])
def test_judge_checks_use_the_judge_provider(tmp_path: Path, score: str, status: str, expected: int) -> None:
    case = write(tmp_path, "judged.yaml", JUDGED)
    agent = write(
        tmp_path, "agent.yaml", SCRIPT.replace("shopping", "judged").replace("REPLY", "Milk, eggs.")
    )
    judge = write(tmp_path, "judge.yaml", JUDGE_SCRIPT.replace("SCORE", score))
    code, report = toolproof_eval(
        tmp_path,
        case,
        "--provider",
        "scripted",
        "--script",
        agent,
        "--judge-provider",
        "scripted",
        "--judge-script",
        judge,
    )
    assert code == expected
    (result,) = report["results"]
    assert result["status"] == status
    if status == "FAIL":
        assert "score 0.5 is below the threshold 0.8" in result["failure"]["message"]


def test_judge_checks_need_a_judge_or_skip_judge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = write(tmp_path, "judged.yaml", JUDGED)
    agent = write(
        tmp_path, "agent.yaml", SCRIPT.replace("shopping", "judged").replace("REPLY", "Milk, eggs.")
    )
    assert main(["eval", str(case), "--provider", "scripted", "--script", str(agent)]) == 2
    assert "judge checks need a judge" in capsys.readouterr().err
    status, report = toolproof_eval(
        tmp_path, case, "--provider", "scripted", "--script", agent, "--skip-judge"
    )
    assert status == 0
    assert report["results"][0]["status"] == "SKIP"


def test_a_judge_that_fails_fails_its_checks_only(tmp_path: Path) -> None:
    case = write(tmp_path, "judged.yaml", JUDGED)
    agent = write(
        tmp_path, "agent.yaml", SCRIPT.replace("shopping", "judged").replace("REPLY", "Milk, eggs.")
    )
    judge = write(tmp_path, "judge.yaml", "scenarios:\n  someone-else:\n    - steps: [{reply: '{}'}]\n")
    status, report = toolproof_eval(
        tmp_path,
        case,
        "--provider",
        "scripted",
        "--script",
        agent,
        "--judge-provider",
        "scripted",
        "--judge-script",
        judge,
    )
    (result,) = report["results"]
    assert result["status"] == "ERROR"
    assert "the judge failed" in result["failure"]["message"]
    assert status == 2


def test_trials_report_pass_at_k(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case, script = scripted(tmp_path, "Milk.")
    status, report = toolproof_eval(
        tmp_path, case, "--provider", "scripted", "--script", script, "--trials", "3", "--k", "2", "-j", "2"
    )
    assert status == 0
    trials = report["results"][0]["trials"]
    assert trials == {
        "n": 3,
        "passed": 3,
        "k": 2,
        "pass_at_k": 1.0,
        "pass_hat_k": 1.0,
        "pass_rate": 1.0,
        "threshold": 1.0,
        "statuses": ["PASS", "PASS", "PASS"],
    }
    out = capsys.readouterr().out
    assert "reliability:" in out
    assert "3/3 trials passed, pass@2 1.00, pass^2 1.00" in out


def test_record_then_replay(tmp_path: Path) -> None:
    case, script = scripted(tmp_path, "Milk.")
    cassettes = tmp_path / "cassettes"
    status, _ = toolproof_eval(
        tmp_path, case, "--provider", "scripted", "--script", script, "--record", cassettes
    )
    assert status == 0
    assert len(list(cassettes.glob("*.json"))) == 1
    # replay: the server command is now broken, so a pass proves nothing was started
    case.write_text(case.read_text().replace("command: python", "command: /nonexistent/server"))
    script.unlink()  # and no model: replay needs neither the script nor a key
    status, report = toolproof_eval(
        tmp_path, case, "--provider", "scripted", "--script", script, "--replay", cassettes
    )
    assert status == 0, report
    assert report["results"][0]["status"] == "PASS"


def test_a_case_with_an_http_target_needs_no_model(tmp_path: Path) -> None:
    from tests.integration.mcp.helpers import free_port

    case = write(
        tmp_path,
        "http.yaml",
        f"name: over http\nprompt: hi\ntarget: {{url: 'http://127.0.0.1:{free_port()}/chat'}}\n"
        "expect: [{reply: {contains: hello}}]\n",
    )
    status, report = toolproof_eval(tmp_path, case)  # no provider anywhere: the endpoint is the agent
    assert status == 1
    (result,) = report["results"]
    assert result["failure"]["kind"] == "transport"


MEMORY_CASE = """\
name: remember
servers:
  memory: {command: mcp-server-memory, env: {MEMORY_FILE_PATH: "{{fixture}}/memory.json"}}
prompt: Remember Bob
expect:
  - called: create_entities
"""

MEMORY_SCRIPT = """\
scenarios:
  remember:
    - steps:
        - tools: [{name: create_entities, arguments: {entities: [{name: Bob, entityType: person,
                                                                  observations: [new]}]}}]
        - reply: done
"""


def test_each_trial_writes_into_its_own_fixture_copy(tmp_path: Path) -> None:
    """A server that writes where `{{fixture}}` points writes into a fresh copy per trial: the fixture and the
    server's own package directory stay as they were."""
    fixture = tmp_path / "fixture"
    fixture.mkdir()
    original = '{"type":"entity","name":"Alice","entityType":"person","observations":[]}\n'
    (fixture / "memory.json").write_text(original)
    package = ROOT / "node_modules" / "@modelcontextprotocol" / "server-memory" / "dist"
    before = sorted(path.name for path in package.iterdir())
    case = write(tmp_path, "remember.yaml", MEMORY_CASE)
    script = write(tmp_path, "script.yaml", MEMORY_SCRIPT)
    status, report = toolproof_eval(
        tmp_path, case, "--provider", "scripted", "--script", script, "--fixture", fixture, "--trials", "2"
    )
    assert status == 0, report
    assert [r["status"] for r in report["results"]] == ["PASS"]
    assert (fixture / "memory.json").read_text() == original
    assert sorted(path.name for path in package.iterdir()) == before


def test_eval_takes_run_control_and_a_bare_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    case, script = scripted(tmp_path, "bread")  # fails: no milk
    write(case.parent, "zlater.yaml", CASE.replace("shopping", "later"))
    passing = SCRIPT.replace("REPLY", "milk").replace("scenarios:\n  shopping", "  later")
    script.write_text(SCRIPT.replace("REPLY", "bread") + passing)
    argv = [case.parent, "--provider", "scripted", "--script", script, "-j", "1"]
    status, report = toolproof_eval(tmp_path, *argv, "-x")
    assert (status, [result["name"] for result in report["results"]]) == (1, ["shopping"])
    status, report = toolproof_eval(tmp_path, *argv)
    assert [result["name"] for result in report["results"]] == ["shopping", "later"]
    capsys.readouterr()
    status = main(["eval", "--json", *map(str, argv), "--lf", "-q"])  # bare --json before the paths
    names = [result["name"] for result in json.loads(capsys.readouterr().out)["results"]]
    assert (status, names) == (1, ["shopping"])



TINY = ROOT / "examples" / "servers" / "tiny_server.py"


@pytest.mark.parametrize(("protocol", "verdict"), [("2026-07-28", "FAIL"), ("auto", "PASS")])
def test_eval_speaks_the_protocol_era_it_is_given(tmp_path: Path, protocol: str, verdict: str) -> None:
    """tiny_server speaks only the handshake era: a pinned 2026-07-28 never falls back, auto does."""
    case, script = scripted(tmp_path, "Milk, eggs.")
    case.write_text(case.read_text().replace(str(NOTES), str(TINY)))
    argv = ("--provider", "scripted", "--script", script, "--protocol", protocol)
    status, report = toolproof_eval(tmp_path, case, *argv)
    (result,) = report["results"]
    assert (status, result["status"]) == (0 if verdict == "PASS" else 1, verdict), result
    if verdict == "FAIL":
        assert "does not speak the 2026-07-28 era" in result["failure"]["message"]
