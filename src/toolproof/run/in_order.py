"""Run items one after another, in their order, in the calling thread: the scheduler's run
(`run/scheduler.py` `run_all`) with one job, for items that wait for nothing (`toolproof check` evaluates
recorded runs), with the same events and without an event loop. Also what both runs say at their end."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TypeVar

from toolproof.model.events import CaseFinished, CaseStarted, RunFinished, RunStarted, RunStopped, Sink
from toolproof.model.result import CaseResult, Status

T = TypeVar("T")

CANCELLED = "when cancelled"
"""Why a run stopped early when neither --maxfail nor an error of its own stopped it (a stop signal)."""


def run_in_order(
    items: Sequence[T],
    execute: Callable[[T], list[CaseResult]],
    name_of: Callable[[T], str],
    *,
    sink: Sink,
    title: str = "toolproof",
    maxfail: int = 0,
) -> list[CaseResult]:
    """Execute every item in order; with `maxfail`, stop once that many items gave a failed or errored
    result. Every item's results are reported under its index as it finishes; the run's end is reported
    also when it is interrupted (Ctrl-C stops it "when cancelled", as the scheduler's run says)."""
    total = len(items)
    results: list[list[CaseResult] | None] = [None] * total
    started = time.perf_counter()
    failed = 0
    stop = CANCELLED
    sink.handle(RunStarted(total=total, jobs=1, title=title))
    try:
        for index, item in enumerate(items):
            sink.handle(CaseStarted(name=name_of(item), index=index, total=total))
            found = results[index] = execute(item)
            for result in found:
                sink.handle(CaseFinished(result=result, index=index, total=total))
            failed += failed_any(found)
            if maxfail and failed >= maxfail:
                stop = maxfail_reached(failed)
                break
    except BaseException as error:
        if not isinstance(error, KeyboardInterrupt):
            stop = stopped_by(error)
        raise
    finally:
        done = run_ended(sink, results, stop, started)
    return done


def failed_any(found: Sequence[CaseResult]) -> bool:
    """Whether one item's results count as a failed case: any of them failed or errored."""
    return any(result.status in (Status.FAIL, Status.ERROR) for result in found)


def maxfail_reached(failed: int) -> str:
    """Why a run stopped once `failed` cases failed (`--maxfail`)."""
    return f"after {failed} failure{'' if failed == 1 else 's'} (-x/--maxfail)"


def stopped_by(error: BaseException) -> str:
    """Why a run stopped when `error` ended it."""
    return f"by {type(error).__name__}" + (f": {error}" if str(error) else "")


def run_ended(
    sink: Sink, results: Sequence[list[CaseResult] | None], stop: str, started: float
) -> list[CaseResult]:
    """Report a run's end: `RunStopped` (`stop`, how many items did not finish) when some did not, then
    `RunFinished` with the results of those that did, which it returns."""
    done = [result for found in results if found is not None for result in found]
    finished = sum(found is not None for found in results)
    if finished < len(results):
        sink.handle(RunStopped(stop, len(results) - finished))
    sink.handle(RunFinished(results=done, duration_s=time.perf_counter() - started))
    return done
