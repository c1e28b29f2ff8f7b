"""The pass-rate gate of `toolproof ci`: the percentage of non-skipped cases that passed, rounded down."""

from __future__ import annotations

from collections.abc import Sequence

from toolproof.model.result import CaseResult, Status


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
