"""`toolproof eval` runs the project's guardrails on each reply, so PromptKit's `guardrail_triggered` has
something to read: a scripted reply with a banned word triggers `banned_words`, a clean reply triggers
nothing."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from tests.integration.agent.conftest import NOTES

from toolproof.cli import main

SCENARIO = """\
apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: Scenario
metadata: {name: promises}
spec:
  id: promises
  turns:
    - role: user
      content: Will my order arrive tomorrow?
      assertions:
        - {type: guardrail_triggered, params: {guardrail: banned_words, expected: true}, message: caught}
        - {type: guardrail_triggered, params: {validator: banned_words, expected: false}, message: passed}
        - {type: guardrail_triggered, params: {expected: false}, message: no guardrail at all}
        - {type: guardrail_triggered, params: {guardrail: max_sentences}, message: too long}
"""

PROJECT = f"""\
provider: scripted
script: script.yaml
servers:
  notes: {{command: python, args: ["{NOTES}"]}}
guardrails:
  - {{type: banned_words, params: {{words: [guarantee, definitely]}}, message: No absolute promises}}
  - {{type: max_sentences, params: {{max_sentences: 3}}}}
"""

SCRIPT = """\
scenarios:
  promises:
    - steps:
        - reply: REPLY
"""


def evaluate(tmp_path: Path, reply: str, project: str = PROJECT, *extra: str) -> tuple[int, dict[str, Any]]:
    """The run's exit status and its one result."""
    (tmp_path / "promises.yaml").write_text(SCENARIO)
    (tmp_path / "script.yaml").write_text(SCRIPT.replace("REPLY", json.dumps(reply)))
    (tmp_path / "toolproof.yaml").write_text(textwrap.dedent(project))
    report = tmp_path / "report.json"
    status = main(
        [
            "eval",
            str(tmp_path / "promises.yaml"),
            "--config",
            str(tmp_path / "toolproof.yaml"),
            "--json",
            str(report),
            "-q",
            *extra,
        ]
    )
    (result,) = json.loads(report.read_text())["results"]
    return status, result


def statuses(result: dict[str, Any]) -> dict[str, str]:
    """Each assertion's status, by its label."""
    return {
        check["check"].removeprefix("turn 1: "): check["status"]
        for check in result["failure"]["details"]["assertions"]
    }


def test_a_banned_word_triggers_the_guardrail(tmp_path: Path) -> None:
    status, result = evaluate(tmp_path, "We definitely deliver tomorrow.")
    assert status == 1
    assert statuses(result) == {
        "caught": "PASS",
        "passed": "FAIL",
        "no guardrail at all": "FAIL",
        "too long": "FAIL",
    }


def test_a_clean_reply_triggers_nothing(tmp_path: Path) -> None:
    status, result = evaluate(tmp_path, "It should arrive tomorrow. Definitive dates come by mail.")
    assert status == 1
    assert statuses(result) == {
        "caught": "FAIL",
        "passed": "PASS",
        "no guardrail at all": "PASS",
        "too long": "FAIL",
    }


def test_saved_traces_keep_the_guardrail_events(tmp_path: Path) -> None:
    traces = tmp_path / "traces"
    evaluate(tmp_path, "We definitely deliver tomorrow.", PROJECT, "--save-traces", str(traces))
    report = tmp_path / "checked.json"
    scenario = tmp_path / "promises.yaml"
    status = main(["check", str(scenario), "--trace", str(traces), "--json", str(report), "-q"])
    assert status == 1
    checked = {result["name"]: result["status"] for result in json.loads(report.read_text())["results"]}
    assert checked == {
        "promises › turn 1: caught": "PASS",
        "promises › turn 1: passed": "FAIL",
        "promises › turn 1: no guardrail at all": "FAIL",
        "promises › turn 1: too long": "FAIL",
    }


def test_without_guardrails_the_assertions_are_not_evaluated(tmp_path: Path) -> None:
    project = PROJECT.split("guardrails:")[0]
    _, result = evaluate(tmp_path, "We definitely deliver tomorrow.", project)
    assert result["status"] == "SKIP"
    assert "no guardrail information" in result["reason"]


@pytest.mark.parametrize(
    ("entry", "field"),
    [
        ("{type: banned_wordz, params: {words: [x]}}", "guardrails[0]: Input tag 'banned_wordz'"),
        ("{type: banned_words, params: {word: [x]}}", "params.word: unknown key (did you mean 'words'?)"),
        ("{type: max_sentences, params: {max_sentences: many}}", "params.max_sentences: "),
    ],
)
def test_a_malformed_guardrail_is_a_load_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], entry: str, field: str
) -> None:
    (tmp_path / "promises.yaml").write_text(SCENARIO)
    (tmp_path / "toolproof.yaml").write_text(f"provider: scripted\nguardrails:\n  - {entry}\n")
    status = main(["eval", str(tmp_path / "promises.yaml"), "--config", str(tmp_path / "toolproof.yaml")])
    assert status == 2
    err = capsys.readouterr().err
    assert "toolproof.yaml:3" in err and field in err
