"""Lines printed after the terminal summary: the comparison with a baseline and the pass-rate gate."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TextIO

from toolproof.core.sanitize import Scrubber
from toolproof.model.events import Event, RunFinished
from toolproof.report.baseline import Entry, compare
from toolproof.report.cut_short import CutShort
from toolproof.report.describe import one_line
from toolproof.report.gate import pass_percentage


class BaselineNote:
    """Prints the regressions, new and removed cases against `baseline` when the run finishes."""

    def __init__(
        self, baseline: dict[str, Entry], *, stdout: TextIO | None = None, secrets: Iterable[str] = ()
    ):
        self._baseline, self._stdout, self._scrub = baseline, stdout, Scrubber(secrets)

    def handle(self, event: Event) -> None:
        if not isinstance(event, RunFinished):
            return
        found = compare(self._baseline, event.results)
        lines = [
            f"against the baseline: {len(found.regressions)} regression(s), {len(found.new)} new, "
            f"{len(found.removed)} removed"
        ]
        lines += [f"  regression: {self._name(each.name)} ({each.why})" for each in found.regressions]
        lines += [f"  new: {self._name(name)}" for name in found.new]
        lines += [f"  removed: {self._name(name)}" for name in found.removed]
        _write(self._stdout, lines)

    def _name(self, name: str) -> str:
        return one_line(self._scrub(name))


class ThresholdNote:
    """Prints the pass rate of the non-skipped cases against `threshold` when the run finishes (a run that
    stopped before every case ran is not judged by it)."""

    def __init__(self, threshold: int, *, stdout: TextIO | None = None) -> None:
        self._threshold, self._stdout = threshold, stdout
        self._run = CutShort()

    def handle(self, event: Event) -> None:
        self._run.see(event)
        if not isinstance(event, RunFinished):
            return
        percentage = pass_percentage(event.results)
        ran = self._run.ran(event)
        if ran is not None:
            line = f"pass rate: the run stopped after {ran} cases; threshold {self._threshold}% not applied"
        elif percentage is None:
            line = f"pass rate: no case ran (threshold {self._threshold}%)"
        else:
            verdict = "met" if percentage >= self._threshold else "NOT met"
            line = f"pass rate {percentage}%, threshold {self._threshold}%: {verdict}"
        _write(self._stdout, [line])


def _write(stream: TextIO | None, lines: list[str]) -> None:
    out = sys.stdout if stream is None else stream
    try:
        out.write("\n".join(lines) + "\n")
        out.flush()
    except (OSError, ValueError):
        pass
