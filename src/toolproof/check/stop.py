"""A run that stopped before its end, as a verdict: the stop an observation records (`Observed.stopped`; for
an agent run, `Transcript.stop` with its `reason`, failure `kind` and `message`) fails the case first,
whatever its checks found. The same rule for a run observed live and for that run read back from a saved
trace. Pure."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolproof.model.result import CaseResult, Status

if TYPE_CHECKING:
    from toolproof.model.observation import Observed


def with_stop(result: CaseResult, observed: Observed) -> CaseResult:
    """The result of a run that stopped early: its failure says why first, then what the checks found."""
    stop = observed.stopped
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
