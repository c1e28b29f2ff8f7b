"""The run's own events besides its cases (warnings, load failures, trials, an early stop): the terminal says
them as they come, the JSON and JUnit reports record them, each with secrets masked."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.unit.report.synthetic import SECRET, feed, sample

from toolproof.core.sanitize import MASK
from toolproof.model.events import Event, LoadFailed, RunStarted, RunStopped, Sink, TrialFinished, Warned
from toolproof.model.result import CaseResult, Status
from toolproof.report.json_report import JsonReport
from toolproof.report.junit import JUnitReport
from toolproof.report.terminal import TerminalReport, Verbosity

NOTES: list[Event] = [
    Warned(f"--server applies to stdio servers only (token {SECRET})"),
    LoadFailed(Path("suites/bad.yaml"), 4, ("suites/bad.yaml:4:3: timeout: invalid duration", "second")),
    RunStopped("when cancelled", 2),
]


def told(sink: Sink) -> None:
    for event in NOTES:
        sink.handle(event)
    feed(sink, sample())


def test_the_terminal_says_them_as_they_come() -> None:
    out, err = io.StringIO(), io.StringIO()
    terminal = TerminalReport(stdout=out, stderr=err, secrets=[SECRET], env={})
    terminal.handle(NOTES[0])
    assert err.getvalue() == f"toolproof: --server applies to stdio servers only (token {MASK})\n"
    terminal.handle(RunStarted(total=3))
    for event in NOTES[1:]:
        terminal.handle(event)
    assert err.getvalue().splitlines()[1:] == [
        "toolproof: load error: suites/bad.yaml:4:3: timeout: invalid duration",
        "toolproof: load error: second",
    ]
    assert out.getvalue() == "stopped when cancelled; 2 of 3 cases not run\n"


def test_the_terminal_shows_each_trial_only_when_verbose() -> None:
    trial = TrialFinished(CaseResult(name="flip", file=Path("s.yaml"), status=Status.FAIL, trial=2), 2, 4)
    quiet, verbose = io.StringIO(), io.StringIO()
    TerminalReport(stdout=quiet, stderr=io.StringIO(), env={}).handle(trial)
    TerminalReport(stdout=verbose, stderr=io.StringIO(), env={}, verbosity=Verbosity.VERBOSE).handle(trial)
    assert quiet.getvalue() == ""
    assert verbose.getvalue() == "trial 2/4 of flip: FAIL\n"


def test_the_json_report_records_them(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    told(JsonReport(str(path), secrets=[SECRET]))
    document = json.loads(path.read_text())
    assert document["warnings"] == [f"--server applies to stdio servers only (token {MASK})"]
    assert document["load_errors"] == [
        {
            "file": "suites/bad.yaml",
            "line": 4,
            "problems": ["suites/bad.yaml:4:3: timeout: invalid duration", "second"],
        }
    ]
    assert document["stopped"] == {"reason": "when cancelled", "unfinished": 2}


def test_a_run_without_them_has_no_such_keys(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    feed(JsonReport(str(path)), sample())
    assert not {"warnings", "load_errors", "stopped"} & set(json.loads(path.read_text()))


def test_the_junit_report_records_them_in_a_suite_of_the_run(tmp_path: Path) -> None:
    path = tmp_path / "r.xml"
    told(JUnitReport(path, secrets=[SECRET]))
    root = ET.parse(path).getroot()
    run = [suite for suite in root.iter("testsuite") if suite.get("name") == "toolproof run"]
    assert len(run) == 1 and run[0].get("tests") == "0"
    text = run[0].findtext("system-out") or ""
    assert text.splitlines() == [
        f"warning: --server applies to stdio servers only (token {MASK})",
        "load error: suites/bad.yaml:4:3: timeout: invalid duration",
        "load error: second",
        "stopped when cancelled; 2 cases not run",
    ]
    assert root.get("tests") == "4"  # the run's suite adds no case
