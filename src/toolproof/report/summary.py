"""Counts over a run's results, shared by every report."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from toolproof.model.result import CaseResult, Status


@dataclass(frozen=True)
class Summary:
    total: int
    passed: int
    failed: int
    skipped: int
    errors: int
    duration_s: float

    @classmethod
    def of(cls, results: Sequence[CaseResult], duration_s: float) -> Summary:
        def count(status: Status) -> int:
            return sum(result.status is status for result in results)

        return cls(
            total=len(results),
            passed=count(Status.PASS),
            failed=count(Status.FAIL),
            skipped=count(Status.SKIP),
            errors=count(Status.ERROR),
            duration_s=duration_s,
        )

    @property
    def ok(self) -> bool:
        """Nothing failed and nothing errored."""
        return self.failed == 0 and self.errors == 0
