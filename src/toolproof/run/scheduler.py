"""Run cases with bounded concurrency and emit the events every report consumes."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

import anyio

from toolproof.model.events import CaseFinished, CaseStarted, RunFinished, RunStarted, Sink
from toolproof.model.result import CaseResult

T = TypeVar("T")


async def run_all(
    items: Sequence[T],
    execute: Callable[[T], Awaitable[CaseResult]],
    name_of: Callable[[T], str],
    *,
    jobs: int,
    sink: Sink,
    title: str = "toolproof",
) -> list[CaseResult]:
    """Execute every item, at most `jobs` at a time; results come back in the items' order."""
    total = len(items)
    results: list[CaseResult | None] = [None] * total
    limiter = anyio.CapacityLimiter(max(1, jobs))
    started = time.perf_counter()
    sink.handle(RunStarted(total=total, jobs=jobs, title=title))

    async def one(index: int, item: T) -> None:
        async with limiter:
            sink.handle(CaseStarted(name=name_of(item), index=index, total=total))
            result = await execute(item)
        results[index] = result
        sink.handle(CaseFinished(result=result, index=index, total=total))

    async with anyio.create_task_group() as group:
        for index, item in enumerate(items):
            group.start_soon(one, index, item)

    done = [result for result in results if result is not None]
    sink.handle(RunFinished(results=done, duration_s=time.perf_counter() - started))
    return done
