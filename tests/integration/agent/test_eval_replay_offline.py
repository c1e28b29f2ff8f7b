"""`toolproof eval --replay DIR` needs no configuration: the model, system prompt, max_tokens, temperature and
the judge's model come from the cassettes when nothing says otherwise, so a run recorded with a project file
replays without it (and without judge flags). What is configured still wins, so a changed setting is a
miss. Recorded over the real notes server; replayed with the server and the scripts gone."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.integration.agent.conftest import NOTES

from toolproof.cli import main

pytestmark = pytest.mark.servers

CASE = f"""\
name: shopping
id: shopping
servers:
  notes: {{command: "{sys.executable}", args: ["{NOTES}"]}}
prompt: What do I need to buy?
expect:
  - called: {{tool: get_note, args: {{note_id: 2}}}}
  - reply: {{contains: milk, case_sensitive: false}}
  - judge: {{criteria: Lists the shopping items, threshold: 0.8}}
"""

PROJECT = """\
provider: scripted
model: house-model
script: script.yaml
system: Answer in one sentence.
max_tokens: 512
temperature: 0.2
judge: {provider: scripted, model: judge-model, script: judge.yaml}
"""

SCRIPT = """\
scenarios:
  shopping:
    - steps:
        - tools: [{name: get_note, arguments: {note_id: 2}}]
        - reply: REPLY
"""

JUDGE_SCRIPT = """\
scenarios:
  shopping:
    - steps:
        - reply: '{"results": [{"id": "agent-check-1", "score": 0.9, "reason": "lists them"}]}'
"""


def toolproof_eval(tmp_path: Path, *argv: str | Path) -> tuple[int, list[dict[str, Any]]]:
    report = tmp_path / "report.json"
    report.unlink(missing_ok=True)
    status = main(["eval", *map(str, argv), "--json", str(report), "-q"])
    return status, json.loads(report.read_text())["results"] if report.exists() else []


def record(tmp_path: Path, reply: str) -> tuple[Path, Path]:
    """Record the case with the project file; then take away the server, the scripts and the project file.
    The case and the cassettes."""
    project_dir = tmp_path / "project"
    project_dir.mkdir()
    (project_dir / "script.yaml").write_text(SCRIPT.replace("REPLY", reply))
    (project_dir / "judge.yaml").write_text(JUDGE_SCRIPT)
    config = project_dir / "toolproof.yaml"
    config.write_text(PROJECT)
    case = tmp_path / "shopping.yaml"
    case.write_text(CASE)
    cassettes = tmp_path / "cassettes"
    toolproof_eval(tmp_path, case, "--config", config, "--record", cassettes)
    assert len(list(cassettes.glob("*.json"))) == 1
    case.write_text(CASE.replace(sys.executable, "/nonexistent/python"))
    for path in project_dir.iterdir():
        path.unlink()
    return case, cassettes


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with no toolproof.yaml."""
    directory = tmp_path / "elsewhere"
    directory.mkdir()
    monkeypatch.chdir(directory)
    return directory


@pytest.mark.parametrize(
    ("reply", "status", "verdict"), [("Milk and eggs.", 0, "PASS"), ("Eggs.", 1, "FAIL")]
)
def test_a_replay_needs_no_provider_and_no_judge_configuration(
    tmp_path: Path, elsewhere: Path, reply: str, status: int, verdict: str
) -> None:
    case, cassettes = record(tmp_path, reply)
    replayed, results = toolproof_eval(tmp_path, case, "--replay", cassettes)
    assert replayed == status, results
    (result,) = results
    assert result["status"] == verdict
    if verdict == "FAIL":
        assert "response contains: milk" in result["failure"]["message"]
        assert result["failure"]["check"] == "1 of 3"  # the judge's recorded verdict still passes


def test_what_is_configured_wins_over_what_was_recorded(tmp_path: Path, elsewhere: Path) -> None:
    case, cassettes = record(tmp_path, "Milk and eggs.")
    status, results = toolproof_eval(tmp_path, case, "--replay", cassettes, "--model", "another-model")
    (result,) = results
    assert (status, result["status"], result["failure"]["kind"]) == (2, "ERROR", "config")
    assert "no recorded model reply for this request" in result["failure"]["message"]


def test_a_replay_can_still_skip_the_judge(tmp_path: Path, elsewhere: Path) -> None:
    case, cassettes = record(tmp_path, "Milk and eggs.")
    status, results = toolproof_eval(tmp_path, case, "--replay", cassettes, "--skip-judge")
    (result,) = results
    assert (status, result["status"]) == (0, "PASS")
