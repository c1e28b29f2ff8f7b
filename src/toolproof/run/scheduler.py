"""Run cases with bounded concurrency, the slowest known first, and emit the events every report consumes."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from typing import TypeVar

import anyio

from toolproof.model.events import CaseFinished, CaseStarted, RunStarted, Sink
from toolproof.model.result import CaseResult
from toolproof.run.in_order import CANCELLED, failed_any, maxfail_reached, run_ended, stopped_by

T = TypeVar("T")

LIVE_PER_JOB = 4
"""Cases alive at once per job: a case that gave up its slot (it only waits for notifications, or for its
server to exit) still holds a server process, so at most `jobs * LIVE_PER_JOB` cases are under way."""


class Slot:
    """One place among the `jobs` working at once; an executor gives it up as soon as its case only waits
    (for stragglers after the answer, for its server to exit) so that the next case starts meanwhile."""

    def __init__(self, limiter: anyio.CapacityLimiter) -> None:
        self._limiter = limiter
        self._held = False

    async def __aenter__(self) -> Slot:
        await self._limiter.acquire_on_behalf_of(self)
        self._held = True
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.release()

    def release(self) -> None:
        if self._held:
            self._held = False
            self._limiter.release_on_behalf_of(self)


async def run_all(
    items: Sequence[T],
    execute: Callable[[T, Slot], Awaitable[CaseResult | list[CaseResult]]],
    name_of: Callable[[T], str],
    *,
    jobs: int,
    sink: Sink,
    title: str = "toolproof",
    maxfail: int = 0,
    expected_s: Callable[[T], float] | None = None,
    turn: Callable[[T], AbstractAsyncContextManager[None]] | None = None,
    prepare: Callable[[], Awaitable[None]] | None = None,
) -> list[CaseResult]:
    """Execute every item, at most `jobs` holding a slot at a time; results come back in the items' order.

    With `expected_s` (an item's expected seconds, e.g. from the last run) and more than one job, the items
    start longest first, so that a slow case does not start last and run on alone while the other slots
    idle. When the run is cancelled, the cases that finished are still reported (RunFinished) before it
    ends. With `maxfail`, the run stops (cases in progress are cancelled, the rest never start) once that
    many cases have failed or errored. With `turn`, an item waits for its turn (held while it runs, e.g.
    `run/side_by_side.py`) before it takes a slot. An item may give several results (a recorded run's checks,
    `run/trace_suite.py`): each is reported under the item's index, so that their reports keep their order
    such items run with one job; it counts as one failed case when any of them failed. `prepare` is awaited
    once the run has started, before the start order is decided (e.g. `SideBySide.declare_all`).
    """
    total = len(items)
    results: list[list[CaseResult] | None] = [None] * total
    limiter = anyio.CapacityLimiter(max(1, jobs))
    alive = anyio.Semaphore(max(1, jobs) * LIVE_PER_JOB)
    started = time.perf_counter()
    failed = 0
    stop = CANCELLED  # what ends a run early unless --maxfail does: a stop signal, a time limit
    sink.handle(RunStarted(total=total, jobs=jobs, title=title))

    async def one(index: int, item: T) -> None:
        nonlocal failed, stop
        try:
            async with turn(item) if turn else nullcontext(), Slot(limiter) as slot:
                if group.cancel_scope.cancel_called:
                    return  # the run stopped (--maxfail) while this case waited for its slot: never started
                sink.handle(CaseStarted(name=name_of(item), index=index, total=total))
                given = await execute(item, slot)
        finally:
            alive.release()
        found = [given] if isinstance(given, CaseResult) else given
        results[index] = found
        for result in found:
            sink.handle(CaseFinished(result=result, index=index, total=total))
        failed += failed_any(found)
        if maxfail and failed >= maxfail:
            stop = maxfail_reached(failed)
            group.cancel_scope.cancel()

    try:
        if prepare is not None:
            await prepare()
        async with anyio.create_task_group() as group:
            for index in start_order(items, expected_s if jobs > 1 else None):
                await alive.acquire()  # a case's task exists only once it may start: memory stays flat
                group.start_soon(one, index, items[index])
    except BaseException as error:
        if not isinstance(error, anyio.get_cancelled_exc_class()):
            stop = stopped_by(error)
        raise
    finally:  # also when the run is cancelled (a stop signal): report the cases that finished
        done = run_ended(sink, results, stop, started)
    return done


def start_order(items: Sequence[T], expected_s: Callable[[T], float] | None) -> list[int]:
    """The items' indexes in the order they start: longest expected first (ties, and every item without
    `expected_s`, in their own order)."""
    indexes = range(len(items))
    if expected_s is None:
        return list(indexes)
    expected = [expected_s(item) for item in items]
    return sorted(indexes, key=lambda index: -expected[index])
