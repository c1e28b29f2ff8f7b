"""`eval` and `check` write the same reports as `run`: trials and reliability of a live scripted agent, a
baseline of recorded runs and its regressions."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from toolproof.cli import main

ROOT = Path(__file__).resolve().parents[3]
CHECK = ["check", "examples/agent", "--trace", "examples/agent/traces", "--skip-judge", "--by-case", "-q"]


@pytest.fixture(autouse=True)
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


def test_eval_trials_reach_every_report(tmp_path: Path) -> None:
    out = {name: tmp_path / f"eval.{name}" for name in ("json", "xml", "md", "badge")}
    status = main(
        ["eval", "examples/agent/live", "--config", "examples/agent/live/toolproof.yaml", "--trials", "2",
         "-q", "--json", str(out["json"]), "--junit", str(out["xml"]), "--markdown", str(out["md"]),
         "--badge", str(out["badge"])]
    )  # fmt: skip
    assert status == 0
    document = json.loads(out["json"].read_text())
    assert document["title"] == "toolproof eval"
    assert document["reliability"] == {"cases": 1, "capable": 1, "reliable": 1, "flaky": 0}
    steps = document["results"][0]["steps"]
    assert [step["kind"] for step in steps][:3] == ["user", "tool_call", "reply"]
    assert steps[1]["name"] == "add_note" and steps[1]["checks"] == ["turn 1: add_note called: PASS"]
    suite = next(ET.parse(out["xml"]).getroot().iter("testsuite"))
    properties = {p.get("name"): p.get("value") for p in suite.find("properties") or []}
    assert properties == {"pass_at_k": "1/1", "pass_up_k": "1/1"}
    assert "| notes assistant | 2 | 2 | 100% | YES | YES |  |" in out["md"].read_text()
    assert json.loads(out["badge"].read_text())["message"] == "2/2"


def test_check_results_compare_with_a_baseline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    baseline = tmp_path / "baseline.json"
    assert main([*CHECK, "--save-baseline", str(baseline)]) == 1
    entries = {entry["name"]: entry["status"] for entry in json.loads(baseline.read_text())["entries"]}
    assert entries["refund for a double charge [good]"] == "PASS"
    assert entries["refund for a double charge [bad]"] == "FAIL"
    edited = {"entries": [{"name": "refund for a double charge [bad]", "status": "PASS"},
                          {"name": "gone", "status": "PASS"}]}  # fmt: skip
    baseline.write_text(json.dumps(edited))
    capsys.readouterr()
    report = tmp_path / "check.json"
    main([*CHECK, "--baseline", str(baseline), "--json", str(report)])
    comparison = json.loads(report.read_text())["baseline"]
    assert comparison["regressions"] == [
        {"name": "refund for a double charge [bad]", "before": "PASS", "now": "FAIL", "why": "PASS -> FAIL"}
    ]
    assert comparison["removed"] == ["gone"]
    assert "refund for a double charge [good]" in comparison["new"]
    assert "regression: refund for a double charge [bad] (PASS -> FAIL)" in capsys.readouterr().out
