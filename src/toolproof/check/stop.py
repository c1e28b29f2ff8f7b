"""A run that stopped before its end, as a verdict: the stop a run recorded (`metadata["stop"]`: its `reason`,
failure `kind` and `message`) fails the case first, whatever its checks found. The same rule for a run
observed live and for that run read back from a saved trace. Pure."""

from __future__ import annotations

from toolproof.model.result import CaseResult, Failure, FailureKind, Status
from toolproof.model.transcript import Transcript


def recorded_stop(run: Transcript) -> Failure | None:
    """Why the run stopped early, as the run recorded it, or None when it ran to its end."""
    stop = run.metadata.get("stop")
    if not isinstance(stop, dict):
        return None
    try:
        kind = FailureKind(stop.get("kind", FailureKind.TRANSPORT))
    except ValueError:
        kind = FailureKind.TRANSPORT
    reason = stop.get("reason")
    return Failure(
        kind=kind,
        message=str(stop.get("message") or "the run stopped early"),
        check=str(reason) if reason else None,
        details={"stop": stop},
    )


def with_recorded_stop(run: Transcript, stop: Failure | None) -> Transcript:
    """`run` carrying `stop` (a failure that ended it, observed apart from it), so that whoever reads the run
    back reaches the same verdict; unchanged when there is none or the run records its own."""
    if stop is None or "stop" in run.metadata:
        return run
    record = {"reason": stop.check or stop.kind.value, "kind": stop.kind.value, "message": stop.message}
    return run.model_copy(update={"metadata": {**run.metadata, "stop": record}})


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
