"""Every command is a thin layer over a call of `toolproof.api`: on the same input, the call's result has as
its `exit_code` the status the command exits with, for a run that passes and one that does not."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from toolproof import api
from toolproof.cli import main
from toolproof.exit_codes import ExitCode

ROOT = Path(__file__).resolve().parents[3]
GREETER = ROOT / "examples" / "your_server" / "greeter.yaml"
WRONG = ROOT / "examples" / "your_server" / "wrong_on_purpose.yaml"
AGENT = ROOT / "examples" / "agent"
TRACES = AGENT / "traces"

Call = Callable[[], "api.SuiteResult"]


@pytest.fixture
def parity(capsys: pytest.CaptureFixture[str]) -> Callable[[list[str], Call], int]:
    """Run the command and the call on the same input; assert they agree and give the status."""

    def same(argv: list[str], call: Call) -> int:
        status = main(argv)
        capsys.readouterr()
        code = call().exit_code
        assert code == status, f"{argv}: the command exits {status}, the call's exit_code is {code}"
        return status

    return same


def test_run(parity: Callable[[list[str], Call], int]) -> None:
    hello = "hello"
    assert parity(["run", str(GREETER), "-k", hello], lambda: api.run_suite([GREETER], select=hello)) == 0
    assert parity(["run", str(WRONG)], lambda: api.run_suite([WRONG])) == ExitCode.FAILED


def test_ci_threshold_decides_the_result(parity: Callable[[list[str], Call], int], tmp_path: Path) -> None:
    """1 of 2 cases passes: a 50% threshold passes the run, 51% fails it, in the call as in `ci`."""
    both, pick = [GREETER, WRONG], "hello or wrong"
    saved = tmp_path / "run.json"
    argv = ["ci", *map(str, both), "-k", pick, "--threshold", "50", "--json", str(saved)]
    call = lambda: api.run_suite(both, select=pick, reports=api.Reports(threshold=50))  # noqa: E731
    assert parity(argv, call) == ExitCode.OK
    argv = ["ci", "--merge", str(tmp_path), "--threshold", "51"]
    reports = api.Reports(threshold=51)
    assert parity(argv, lambda: api.merge_reports([saved], reports=reports)) == ExitCode.FAILED


def test_run_maxfail_is_not_judged_by_a_threshold(parity: Callable[[list[str], Call], int]) -> None:
    both, pick = [WRONG, GREETER], "wrong or hello"
    argv = ["ci", *map(str, both), "-k", pick, "-x", "-j", "1", "--threshold", "0"]

    def call() -> api.SuiteResult:
        collection = api.collect_suite(both, select=pick)
        options = api.server_options()
        result = api.run_collection(collection, options, jobs=1, maxfail=1, reports=api.Reports(threshold=0))
        assert result.not_run > 0
        return result

    assert parity(argv, call) == ExitCode.FAILED


def test_check(parity: Callable[[list[str], Call], int]) -> None:
    for cases, expected in (("promptkit/weather.yaml", ExitCode.OK), ("toolproof/support_agent.yaml", 1)):
        argv = ["check", str(AGENT / cases), "--trace", str(TRACES), "--skip-judge", "-q"]
        call = lambda: api.check_traces([AGENT / cases], [TRACES], skip_judge=True)  # noqa: E731, B023
        assert parity(argv, call) == expected


def test_report_and_its_gate(parity: Callable[[list[str], Call], int], tmp_path: Path) -> None:
    """A merged report exits 0 without a gate, whatever its verdicts; a baseline's regression fails it."""
    from toolproof.report.baseline import load_baseline

    saved = tmp_path / "run.json"
    main(["run", str(WRONG), "-q", "--json", str(saved)])
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps({"entries": [{"name": "greet is wrong on purpose", "status": "PASS"}]}))
    assert parity(["report", str(saved)], lambda: api.merge_reports([saved])) == ExitCode.OK
    gate = ["--threshold", "0", "--baseline", str(baseline)]
    entries = load_baseline(baseline)
    for strict, expected in ((False, ExitCode.OK), (True, ExitCode.FAILED)):
        argv = ["report", str(saved), *gate, *(["--fail-on-regression"] if strict else [])]
        reports = api.Reports(threshold=0, baseline=entries, fail_on_regression=strict)
        assert parity(argv, lambda: api.merge_reports([saved], reports=reports)) == expected  # noqa: B023
