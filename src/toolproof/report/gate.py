"""The gate of `ci`, `report` and `--baseline`: the pass percentage of the non-skipped cases against
`--threshold`, and regressions against a baseline, deciding a run's exit status again."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolproof.exit_codes import ExitCode
from toolproof.model.result import CaseResult, Status

if TYPE_CHECKING:
    from toolproof.report.baseline import Entry


def pass_percentage(results: Sequence[CaseResult]) -> int | None:
    """floor(passed * 100 / non-skipped cases), as mcp-assert computes it; None when all were skipped."""
    counted = [result for result in results if result.status is not Status.SKIP]
    if not counted:
        return None
    return sum(result.status is Status.PASS for result in counted) * 100 // len(counted)


def meets_threshold(results: Sequence[CaseResult], threshold: int) -> bool:
    """Whether the pass percentage reaches `threshold` (4 of 5 passes meet 80, not 81)."""
    percentage = pass_percentage(results)
    return percentage is not None and percentage >= threshold


@dataclass(frozen=True)
class Gate:
    """`threshold`: the lowest pass percentage that passes (None: no threshold); `baseline`: the loaded
    baseline a case that passed there must still pass against; `fail_on_regression`: with a threshold, a
    regression fails the run too (without one, a regression always does)."""

    threshold: int | None = None
    baseline: Mapping[str, Entry] | None = None
    fail_on_regression: bool = False

    def decide(self, status: int, results: Sequence[CaseResult], *, sharded: bool = False) -> int:
        """The exit status `status` of a run with `results`, decided again by the gate.

        A usage or load error (2), nothing run (5) or a stop by signal stays. Without a threshold: 1 instead
        of 0 when the baseline finds a regression. With one: 1 when the pass rate is below it or, with
        `fail_on_regression`, a case regressed; else 0; 5 when every case was skipped, unless the run is a
        shard (`sharded`): the threshold is for the merged run."""
        if status not in (ExitCode.OK, ExitCode.FAILED):
            return status
        regressed = self.baseline is not None and self._regressed(results)
        if self.threshold is None:
            return ExitCode.FAILED if regressed else status
        if pass_percentage(results) is None:
            return status if sharded else ExitCode.NO_TESTS
        if not meets_threshold(results, self.threshold):
            return ExitCode.FAILED
        return ExitCode.FAILED if regressed and self.fail_on_regression else ExitCode.OK

    def _regressed(self, results: Sequence[CaseResult]) -> bool:
        from toolproof.report.baseline import compare  # loaded only with a baseline

        return bool(compare(dict(self.baseline or {}), results).regressions)
