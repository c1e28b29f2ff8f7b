"""A run that stopped before its end, as a verdict: the stop a run recorded (`Transcript.stop`: its `reason`,
failure `kind` and `message`) fails the case first, whatever its checks found. The same rule for a run
observed live and for that run read back from a saved trace. Pure."""

from __future__ import annotations

from toolproof.model.result import CaseResult, Failure, Status
from toolproof.model.transcript import Transcript


def recorded_stop(run: Transcript) -> Failure | None:
    """Why the run stopped early, as the run recorded it, or None when it ran to its end."""
    stop = run.stop
    if stop is None:
        return None
    return Failure(
        kind=stop.kind,
        message=stop.message,
        check=stop.reason,
        details={"stop": stop.model_dump(mode="json", exclude_none=True)},
    )


def with_stop(result: CaseResult, stop: Failure | None) -> CaseResult:
    """The result of a run that stopped early: its failure says why first, then what the checks found."""
    if stop is None:
        return result
    previous = result.failure
    failure = stop.model_copy(
        update={
            "message": f"{stop.message}\n{previous.message}" if previous else stop.message,
            "details": {**(previous.details if previous else {}), **stop.details},
        }
    )
    status = Status.ERROR if result.status is Status.ERROR else Status.FAIL
    return result.model_copy(update={"status": status, "failure": failure})
