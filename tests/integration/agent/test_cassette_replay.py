"""`toolproof eval --record / --replay` over the notes MCP server: cassettes mask every secret the reports
mask, and every request a cassette does not hold (of the model, the judge or a tool) is the same verdict, a
`config` error naming the cassette and the request, that ends the trial."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from tests.integration.agent.conftest import NOTES
from tests.support.llm_wire import LlmWire, WireCall, llm_wire

from toolproof.cli import main

__all__ = ["llm_wire"]  # the fixture

pytestmark = pytest.mark.servers
KEY_ENV = "WIRE_MODEL_PASS"  # no KEY/TOKEN/SECRET in the name: only api_key_env says it holds a key
KEY = "sk-cassette-dummy-7c2e4a91"

CASE = f"""\
name: shopping
id: shopping
servers:
  notes: {{command: "{sys.executable}", args: ["{NOTES}"]}}
prompt: What do I need to buy?
expect:
  - called: {{tool: get_note, args: {{note_id: 2}}}}
  - reply: {{contains: milk, case_sensitive: false}}
"""

SCRIPT = """\
scenarios:
  shopping:
    - steps:
        - tools: [{name: get_note, arguments: {note_id: 2}}]
        - reply: Milk and eggs.
"""

JUDGE_CHECK = "  - judge: {criteria: Lists the shopping items, threshold: 0.8}\n"
JUDGE_SCRIPT = """\
scenarios:
  shopping:
    - steps:
        - reply: '{"results": [{"id": "agent-check-1", "score": 0.9, "reason": "lists them"}]}'
"""


def toolproof_eval(tmp_path: Path, *argv: str | Path) -> tuple[int, dict[str, Any]]:
    """Run `toolproof eval` with a JSON report; its exit status and the report."""
    report = tmp_path / "report.json"
    report.unlink(missing_ok=True)
    status = main(["eval", *map(str, argv), "--json", str(report), "-q"])
    return status, json.loads(report.read_text())


def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text))
    return path


def only_cassette(directory: Path) -> Path:
    (path,) = directory.glob("*.json")
    return path


def test_an_api_key_from_a_plainly_named_variable_never_reaches_the_cassette(
    llm_wire: LlmWire, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    settings = f"provider: openai\nmodel: wire-model\nbase_url: {llm_wire.openai_base_url}\n"
    project = write(tmp_path / "toolproof.yaml", f"{settings}api_key_env: {KEY_ENV}\n")
    case = write(tmp_path / "shopping.yaml", CASE + "  - reply: {contains: nothing to buy}\n")
    llm_wire.reply(calls=[WireCall("get_note", {"note_id": 2})])
    llm_wire.reply(f"Milk and eggs. (debug: my key is {KEY})")  # a model that leaks its key
    cassettes = tmp_path / "cassettes"

    status, _ = toolproof_eval(tmp_path, case, "--config", project, "--record", cassettes)
    assert status == 1  # only the `nothing to buy` check fails
    assert KEY in {value.removeprefix("Bearer ") for value in llm_wire.requests[0].headers.values()}
    text = only_cassette(cassettes).read_text()
    assert KEY not in text
    assert "my key is ***" in text

    capsys.readouterr()
    monkeypatch.delenv(KEY_ENV)  # replay needs no key, and has none to mask the output with
    status, report = toolproof_eval(tmp_path, case, "--config", project, "--replay", cassettes)
    out = capsys.readouterr()
    assert status == 1
    (result,) = report["results"]
    assert result["status"] == "FAIL"
    assert "my key is ***" in result["failure"]["message"]
    assert KEY not in out.out + out.err + json.dumps(report)
    assert len(llm_wire.requests) == 2  # the replay asked the model nothing


@pytest.fixture
def recorded(tmp_path: Path) -> tuple[Path, Path]:
    """A judged case recorded with a scripted model and judge over the notes server: case and cassettes."""
    case = write(tmp_path / "shopping.yaml", CASE + JUDGE_CHECK)
    script = write(tmp_path / "script.yaml", SCRIPT)
    judge = write(tmp_path / "judge.yaml", JUDGE_SCRIPT)
    cassettes = tmp_path / "cassettes"
    models = ["--provider", "scripted", "--script", script, "--judge-provider", "scripted"]
    status, report = toolproof_eval(tmp_path, case, *models, "--judge-script", judge, "--record", cassettes)
    assert status == 0, report
    # From here on there is no server to start and no script to read: only the cassette answers.
    case.write_text(case.read_text().replace(sys.executable, "/nonexistent/python"))
    script.unlink()
    judge.unlink()
    return case, cassettes


def replay(tmp_path: Path, case: Path, cassettes: Path) -> tuple[int, dict[str, Any]]:
    return toolproof_eval(
        tmp_path, case, "--provider", "scripted", "--judge-provider", "scripted", "--replay", cassettes
    )


def config_error(tmp_path: Path, case: Path, cassettes: Path) -> str:
    """The message of the replayed case's verdict, which must be a `config` error (exit status 2)."""
    status, report = replay(tmp_path, case, cassettes)
    (result,) = report["results"]
    assert (status, result["status"], result["failure"]["kind"]) == (2, "ERROR", "config"), result
    message: str = result["failure"]["message"]
    assert message.startswith(f"cassette: {only_cassette(cassettes)}: no recorded "), message
    return message


def test_a_replay_of_an_unchanged_case_passes(recorded: tuple[Path, Path], tmp_path: Path) -> None:
    case, cassettes = recorded
    status, report = replay(tmp_path, case, cassettes)
    assert (status, report["results"][0]["status"]) == (0, "PASS")


def test_a_model_request_the_cassette_lacks_is_a_config_error(
    recorded: tuple[Path, Path], tmp_path: Path
) -> None:
    case, cassettes = recorded
    case.write_text(case.read_text().replace("What do I need to buy?", "What is on my list?"))
    message = config_error(tmp_path, case, cassettes)
    assert "no recorded model reply for this request" in message
    assert "last message user: 'What is on my list?'" in message


def test_a_tool_call_the_cassette_lacks_is_a_config_error_that_ends_the_run(
    recorded: tuple[Path, Path], tmp_path: Path
) -> None:
    case, cassettes = recorded
    path = only_cassette(cassettes)
    data = json.loads(path.read_text())
    data["exchanges"] = [entry for entry in data["exchanges"] if entry["kind"] != "call"]
    path.write_text(json.dumps(data))
    message = config_error(tmp_path, case, cassettes)
    # The model's next request (with the tool result) is recorded: had the miss gone back to the model as a
    # failed tool result, that request would differ and the miss would be a model request's.
    assert "no recorded result for tool call get_note '{\"note_id\": 2}' on server 'tools'" in message


def test_a_judge_request_the_cassette_lacks_is_a_config_error(
    recorded: tuple[Path, Path], tmp_path: Path
) -> None:
    case, cassettes = recorded
    case.write_text(case.read_text().replace("Lists the shopping items", "Lists every item"))
    message = config_error(tmp_path, case, cassettes)
    assert "no recorded model reply for this request" in message
    assert "Lists every item" in message


def test_the_judge_api_key_is_masked_in_reports_and_cassettes(
    llm_wire: LlmWire, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("WIRE_JUDGE_PASS", "sk-judge-dummy-3f9b0d12")
    script = write(tmp_path / "script.yaml", SCRIPT)
    judge = f"judge: {{provider: openai, model: wire-judge, base_url: {llm_wire.openai_base_url}, "
    project = write(tmp_path / "toolproof.yaml", judge + "api_key_env: WIRE_JUDGE_PASS}\n")
    case = write(tmp_path / "shopping.yaml", CASE + JUDGE_CHECK)
    verdict = {"results": [{"id": "agent-check-1", "score": 0.2, "reason": "said sk-judge-dummy-3f9b0d12"}]}
    llm_wire.reply(json.dumps(verdict))  # a judge that leaks its key in its reason
    cassettes = tmp_path / "cassettes"

    argv = ["--config", project, "--provider", "scripted", "--script", script, "--record", cassettes]
    status, report = toolproof_eval(tmp_path, case, *argv)
    out = capsys.readouterr()
    assert status == 1  # the judge's score is under the threshold
    assert llm_wire.requests[0].headers["authorization"] == "Bearer sk-judge-dummy-3f9b0d12"
    (result,) = report["results"]
    assert "said ***" in result["failure"]["message"]
    written = only_cassette(cassettes).read_text()
    assert "said ***" in written
    assert "sk-judge-dummy-3f9b0d12" not in written + out.out + out.err + json.dumps(report)
