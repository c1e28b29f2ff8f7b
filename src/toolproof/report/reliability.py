"""Reliability over trials, as every report shows it: flaky labels, pass rates, pass@k and pass^k counts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from toolproof.model.result import CaseResult, TrialStats


def flaky_label(result: CaseResult) -> str:
    """`flaky, 2/3 passed (67%)` for a case some but not all of whose trials passed, else ``."""
    stats = result.trials
    if stats is None or not stats.flaky:
        return ""
    return f"flaky, {stats.passed}/{stats.n} passed ({stats.rate:.0%})"


@dataclass(frozen=True)
class Reliability:
    """The cases run as trials, with how many passed at least once (capable) and every time (reliable)."""

    rows: tuple[tuple[CaseResult, TrialStats], ...]

    @property
    def capable(self) -> int:
        return sum(stats.passed > 0 for _, stats in self.rows)

    @property
    def reliable(self) -> int:
        return sum(stats.passed == stats.n for _, stats in self.rows)

    @property
    def flaky(self) -> int:
        return sum(stats.flaky for _, stats in self.rows)

    def line(self) -> str:
        """`pass@k: 2/3 capable, pass^k: 1/3 reliable, 1 flaky`."""
        total = len(self.rows)
        capable, reliable = f"{self.capable}/{total} capable", f"{self.reliable}/{total} reliable"
        return f"pass@k: {capable}, pass^k: {reliable}, {self.flaky} flaky"


def reliability(results: Sequence[CaseResult]) -> Reliability | None:
    """The reliability of the cases run as trials; None when none was."""
    rows = tuple((result, result.trials) for result in results if result.trials is not None)
    return Reliability(rows) if rows else None
