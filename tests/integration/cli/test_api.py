"""The public Python API: `import toolproof` is cheap, and each call gives the verdicts and the exit status
the command line would."""

from __future__ import annotations

import io
import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import toolproof
from toolproof.model.events import CaseFinished, Event, RunFinished

ROOT = Path(__file__).resolve().parents[3]
GREETER = ROOT / "examples" / "your_server" / "greeter.yaml"
WRONG = ROOT / "examples" / "your_server" / "wrong_on_purpose.yaml"
AGENT = ROOT / "examples" / "agent"


def test_exit_codes() -> None:
    assert [int(code) for code in toolproof.ExitCode] == [0, 1, 2, 5]
    assert toolproof.ExitCode.stopped_by(signal.SIGTERM) == 143
    assert toolproof.ExitCode.stopped_by(signal.SIGINT) == 130


def test_import_toolproof_loads_no_api_until_used() -> None:
    code = (
        "import sys, toolproof\n"
        "heavy = sorted({'toolproof.api', 'pydantic', 'anyio', 'mcp'} & set(sys.modules))\n"
        "assert not heavy, heavy\n"
        "from toolproof import run_suite, check_traces, evaluate, ExitCode\n"
        "assert callable(run_suite) and callable(check_traces) and callable(evaluate)\n"
        "assert 'mcp' not in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    with pytest.raises(AttributeError):
        toolproof.no_such_name  # noqa: B018


def test_run_suite_returns_the_verdicts_and_reports_only_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events: list[Event] = []

    class Collect:
        def handle(self, event: Event) -> None:
            events.append(event)

    terminal = io.StringIO()
    report = tmp_path / "r.json"
    suite = toolproof.run_suite(
        [GREETER, WRONG],
        reports=toolproof.Reports(terminal=terminal, json=report, verbosity="quiet"),
        sink=Collect(),
    )
    assert [(r.name, str(r.status)) for r in suite.results] == [
        ("greet says hello by name", "PASS"),
        ("divide returns the quotient", "PASS"),
        ("dividing by zero is a tool error, not a crash", "PASS"),
        ("greet is wrong on purpose", "FAIL"),
    ]
    assert (suite.passed, suite.failed, suite.errors, suite.skipped) == (3, 1, 0, 0)
    assert suite.exit_code == toolproof.ExitCode.FAILED and not suite.ok
    failing_line = WRONG.read_text().splitlines().index('    contains: ["Goodbye"]') + 1
    assert suite.results[-1].line == failing_line  # the failing expectation, not the case's first line
    assert "greet is wrong on purpose" in terminal.getvalue()
    assert len(json.loads(report.read_text())["results"]) == 4
    assert sum(isinstance(event, CaseFinished) for event in events) == 4
    assert isinstance(events[-1], RunFinished)
    assert capsys.readouterr() == ("", "")  # nothing else printed


def test_run_suite_selects_and_refuses_what_cannot_run(tmp_path: Path) -> None:
    chosen = toolproof.run_suite([GREETER], select="hello")
    assert [r.name for r in chosen.results] == ["greet says hello by name"]
    assert chosen.ok
    with pytest.raises(toolproof.UsageError, match="no such file or directory"):
        toolproof.run_suite([tmp_path / "missing"])
    with pytest.raises(toolproof.UsageError, match="selects none"):
        toolproof.run_suite([GREETER], select="nothing-like-this")
    with pytest.raises(toolproof.UsageError, match="not a directory"):
        toolproof.run_suite([GREETER], fixture=GREETER)
    with pytest.raises(toolproof.UsageError, match="--subscription-wait must not be negative, got -1"):
        toolproof.run_suite([GREETER], subscription_wait=-1)
    assert toolproof.run_suite([tmp_path]).exit_code == toolproof.ExitCode.NO_TESTS


def test_collect_suite_runs_nothing() -> None:
    collection = toolproof.collect_suite([GREETER, WRONG], select="not wrong")
    assert [case.name for case in collection.cases] == [
        "greet says hello by name",
        "divide returns the quotient",
        "dividing by zero is a tool error, not a crash",
    ]
    assert collection.errors == []


def test_a_single_path_is_one_path_not_a_sequence_of_characters() -> None:
    collection = toolproof.collect_suite(str(GREETER))
    assert len(collection.cases) == 3
    runs = toolproof.check_traces(str(AGENT), AGENT / "traces", skip_judge=True)
    assert runs.passed > 0 and runs.failed > 0


def test_check_traces() -> None:
    runs = toolproof.check_traces([AGENT], [AGENT / "traces"], skip_judge=True)
    assert runs.exit_code == toolproof.ExitCode.FAILED  # the bad runs are bad on purpose
    assert runs.passed > 0 and runs.failed > 0
    by_case = toolproof.check_traces([AGENT / "toolproof"], [AGENT / "traces"], skip_judge=True, by_case=True)
    assert any(r.name.startswith("refund for a double charge") for r in by_case.results)
    with pytest.raises(toolproof.UsageError, match="judge checks need a judge"):
        toolproof.check_traces([AGENT / "toolproof"], [AGENT / "traces"])
    with pytest.raises(toolproof.UsageError, match="not a time zone name"):
        toolproof.check_traces([AGENT], [AGENT / "traces"], skip_judge=True, timezone="Mars/Olympus")


def test_evaluate_with_a_scripted_model() -> None:
    agents = toolproof.evaluate([AGENT / "live"], config=AGENT / "live" / "toolproof.yaml")
    assert agents.ok, agents.results
    assert agents.passed == len(agents.results) > 0
    with pytest.raises(toolproof.UsageError, match="--k 3 is more than the 1 trial"):
        toolproof.evaluate([AGENT / "live"], config=AGENT / "live" / "toolproof.yaml", k=3)
