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
    warned: int = 0  # passed, with warnings (a lint warning, lines on stdout that are not MCP)

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
            warned=sum(result.status is Status.PASS and bool(result.warnings) for result in results),
        )

    @property
    def passed_text(self) -> str:
        """`3 passed`, or `3 passed (1 with warnings)`."""
        warned = f" ({self.warned} with warning{'' if self.warned == 1 else 's'})" if self.warned else ""
        return f"{self.passed} passed{warned}"

    @property
    def ok(self) -> bool:
        """Nothing failed and nothing errored."""
        return self.failed == 0 and self.errors == 0
