"""What became of one agent case's checks over one run: a `CheckOutcome` per check, the `Evaluation` of the
case, and the results they are reported as."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolproof.model.result import CaseResult, Failure, Status
from toolproof.model.scenario import AgentCase, Assertion
from toolproof.model.transcript import Transcript


@dataclass(frozen=True)
class CheckOutcome:
    """What became of one check."""

    check: Assertion
    turn: int | None
    label: str
    status: Status
    failure: Failure | None = None
    reason: str | None = None

    @property
    def passed(self) -> bool:
        return self.status is Status.PASS

    def as_dict(self) -> dict[str, Any]:
        item: dict[str, Any] = {"check": self.label, "kind": self.check.kind, "status": self.status.value}
        if self.check.id:
            item["id"] = self.check.id
        if self.turn is not None:
            item["turn"] = self.turn + 1
        if self.failure is not None:
            item |= {
                "message": self.failure.message,
                "expected": self.failure.expected,
                "actual": self.failure.actual,
                **self.failure.details,
            }
        if self.reason:
            item["reason"] = self.reason
        return item


@dataclass(frozen=True)
class Evaluation:
    """Every check's outcome for one case over one run."""

    case: AgentCase
    run: Transcript
    outcomes: tuple[CheckOutcome, ...]
    warnings: tuple[str, ...] = ()
    judge_requests: int = 0
    extracted: dict[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> Status:
        """ERROR if any check errored, else FAIL if any failed, else PASS (SKIP if nothing was evaluated)."""
        statuses = {outcome.status for outcome in self.outcomes}
        for status in (Status.ERROR, Status.FAIL, Status.PASS):
            if status in statuses:
                return status
        return Status.SKIP

    def assertion_results(self, trial: int = 1) -> list[CaseResult]:
        """One result per check, named `case › check`."""
        return [
            CaseResult(
                name=f"{self.case.name} › {outcome.label}",
                file=self.case.source.file,
                line=outcome.check.line or self.case.source.line,
                status=outcome.status,
                failure=outcome.failure,
                reason=outcome.reason,
                trial=trial,
            )
            for outcome in self.outcomes
        ]

    def case_result(self, trial: int = 1) -> CaseResult:
        """One result for the whole case: its failing checks in the message, every outcome in the details."""
        status = self.status
        bad = [outcome for outcome in self.outcomes if outcome.status in (Status.FAIL, Status.ERROR)]
        apart = [outcome for outcome in self.outcomes if outcome.status is Status.SKIP]
        reason = None
        if apart:
            reason = f"{len(apart)} not counted: " + "; ".join(f"{o.label} ({o.reason})" for o in apart)
        failure = None
        if bad:
            kind = next(o.failure.kind for o in bad if o.failure is not None and o.status is status)
            lines = [
                f"{outcome.label}: {outcome.failure.message if outcome.failure else outcome.reason}"
                for outcome in bad
            ]
            failure = Failure(
                kind=kind,
                message="\n".join(lines),
                check=f"{len(bad)} of {len(self.outcomes)}",
                details={
                    "assertions": [outcome.as_dict() for outcome in self.outcomes],
                    "warnings": list(self.warnings),
                    **({"extracted": self.extracted} if self.extracted else {}),
                },
            )
        return CaseResult(
            name=self.case.name,
            file=self.case.source.file,
            line=self.case.source.line,
            status=status,
            failure=failure,
            reason=reason,
            trial=trial,
        )
