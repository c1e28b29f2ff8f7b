"""A case run as trials shows its wall time on its line (its trials may overlap, so their summed durations
can exceed the whole run); the result, and so the JSON report, keeps the sum."""

from __future__ import annotations

import io
from pathlib import Path

from toolproof.check.trials import trial_stats
from toolproof.model.events import CaseFinished, CaseStarted, RunFinished, RunStarted
from toolproof.model.result import CaseResult, Status
from toolproof.report.terminal import TerminalReport


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def trials_result(summed_s: float) -> CaseResult:
    """Three passing trials of `flaky` whose durations add up to `summed_s`."""
    stats = trial_stats([Status.PASS, Status.PASS, Status.PASS])
    return CaseResult(
        name="flaky", file=Path("s.yaml"), status=Status.PASS, duration_s=summed_s, trials=stats
    )


def report(clock: Clock) -> tuple[TerminalReport, io.StringIO]:
    out = io.StringIO()
    return TerminalReport(stdout=out, stderr=io.StringIO(), env={}, clock=clock), out


def test_the_case_line_shows_the_wall_time_of_overlapping_trials() -> None:
    clock = Clock()
    terminal, out = report(clock)
    result = trials_result(summed_s=4.2)  # three trials of 1.4s that ran side by side
    terminal.handle(RunStarted(total=1))
    terminal.handle(CaseStarted(name="flaky", index=0, total=1))
    clock.now += 1.5
    terminal.handle(CaseFinished(result=result, index=0, total=1))
    terminal.handle(RunFinished(results=[result], duration_s=1.6))
    lines = out.getvalue().splitlines()
    assert lines[0] == "PASS  flaky  1.5s  3/3 trials passed, pass@3 1.00, pass^3 1.00"
    assert lines[-1] == "1 passed, 0 failed in 1.6s"
    assert result.duration_s == 4.2


def test_without_its_start_the_sum_is_labelled() -> None:
    terminal, out = report(Clock())
    terminal.handle(RunStarted(total=1))
    terminal.handle(CaseFinished(result=trials_result(summed_s=4.2), index=0, total=1))
    expected = "PASS  flaky  4.2s summed over 3 trials  3/3 trials passed, pass@3 1.00, pass^3 1.00"
    assert out.getvalue().splitlines()[0] == expected


def test_a_single_run_shows_its_own_duration() -> None:
    clock = Clock()
    terminal, out = report(clock)
    terminal.handle(RunStarted(total=1))
    terminal.handle(CaseStarted(name="once", index=0, total=1))
    clock.now += 9.0  # the case's own duration is what it reports, not the time between events
    once = CaseResult(name="once", file=Path("s.yaml"), status=Status.PASS, duration_s=0.25)
    terminal.handle(CaseFinished(result=once, index=0, total=1))
    assert out.getvalue().splitlines()[0] == "PASS  once  250ms"
