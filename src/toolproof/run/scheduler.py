"""Run cases with bounded concurrency and emit the events every report consumes."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

import anyio

from toolproof.model.events import CaseFinished, CaseStarted, RunFinished, RunStarted, Sink
from toolproof.model.result import CaseResult, Status

T = TypeVar("T")


class Slot:
    """One place among the `jobs` running at once; an executor may give it up early (e.g. while a server
    shuts down, which waits without working) so the next case can start."""

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
    execute: Callable[[T, Slot], Awaitable[CaseResult]],
    name_of: Callable[[T], str],
    *,
    jobs: int,
    sink: Sink,
    title: str = "toolproof",
    maxfail: int = 0,
) -> list[CaseResult]:
    """Execute every item, at most `jobs` holding a slot at a time; results come back in the items' order.

    When the run is cancelled, the cases that finished are still reported (RunFinished) before it ends.
    With `maxfail`, the run stops (cases in progress are cancelled, the rest never start) once that many
    cases have failed or errored.
    """
    total = len(items)
    results: list[CaseResult | None] = [None] * total
    limiter = anyio.CapacityLimiter(max(1, jobs))
    started = time.perf_counter()
    failed = 0
    sink.handle(RunStarted(total=total, jobs=jobs, title=title))

    async def one(index: int, item: T) -> None:
        nonlocal failed
        async with Slot(limiter) as slot:
            sink.handle(CaseStarted(name=name_of(item), index=index, total=total))
            result = await execute(item, slot)
        results[index] = result
        sink.handle(CaseFinished(result=result, index=index, total=total))
        failed += result.status in (Status.FAIL, Status.ERROR)
        if maxfail and failed >= maxfail:
            group.cancel_scope.cancel()

    try:
        async with anyio.create_task_group() as group:
            for index, item in enumerate(items):
                group.start_soon(one, index, item)
    finally:  # also when the run is cancelled (a stop signal): report the cases that finished
        done = [result for result in results if result is not None]
        sink.handle(RunFinished(results=done, duration_s=time.perf_counter() - started))
    return done
