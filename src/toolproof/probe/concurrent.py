"""Independent tools/calls in flight together on one server, then one at a time where a call must be blamed.

JSON-RPC lets a client have many requests in flight, so a slow tool need not hold up the others: up to
`jobs` calls share one session. An answer (a result or an error response) belongs to its request id, so
it stands. A call that may have broken the server (transport failure, protocol error, timeout) cannot be
blamed on its own call while others were in flight: such calls, and the calls not yet sent once one
happened, are made again one at a time, each on a server that no earlier broken call touched, exactly as
a one-at-a-time probe makes them. One exception keeps a slow tool from costing its timeout twice: a call
that timed out while the server answered a call sent after it was not stuck behind anything, so its
timeout stands. The server's stderr during a call is shown with a failure, so a failure or isError
answer during which the server wrote to stderr while other calls were in flight is made again alone too.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import anyio

from toolproof.mcp.errors import RequestFailed
from toolproof.model.result import FailureKind
from toolproof.probe.connection import Prober, broke
from toolproof.probe.outcome import CallOutcome


@dataclass(frozen=True)
class Call:
    """One tools/call to make: the tool's name and the arguments, sent as given."""

    name: str
    arguments: Any


async def call_concurrently(
    prober: Prober,
    calls: Sequence[Call],
    jobs: int,
    done: Callable[[int, CallOutcome], None] = lambda index, outcome: None,
    first: Sequence[int] = (),
) -> list[CallOutcome]:
    """The outcome of every call, in `calls` order; `done(index, outcome)` as each call's verdict is final.
    Calls in flight together are sent `first` ones first (indexes: the slowest last time), then in order.

    With `jobs` 1 every call is made one at a time, as `Prober.call` makes it, in order."""
    outcomes = await call_together(prober, calls, jobs, done, first=first)
    for index, call in enumerate(calls):
        if outcomes[index] is None:
            outcome = await prober.call(call.name, call.arguments)
            outcomes[index] = outcome
            done(index, outcome)
    return [outcome for outcome in outcomes if outcome is not None]


async def call_together(
    prober: Prober,
    calls: Sequence[Call],
    jobs: int,
    done: Callable[[int, CallOutcome], None] = lambda index, outcome: None,
    stop: Callable[[], bool] = lambda: False,
    first: Sequence[int] = (),
) -> list[CallOutcome | None]:
    """Make the calls on one session, `jobs` at a time (the `first` indexes before the rest, each group in
    order), and keep the outcomes that are surely theirs (None: to be made alone); after a call that may
    have broken the server, or once `stop()`, send no more (a broken server is closed). With `jobs` 1 (or a
    single call) nothing is sent."""
    outcomes: list[CallOutcome | None] = [None for _ in calls]
    if jobs < 2 or len(calls) < 2:
        return outcomes
    try:
        session = await prober.session()
    except RequestFailed:
        return outcomes  # each call will say so on its own
    order = itertools.count()
    waiting: dict[int, int] = {}  # call index -> when it was sent
    unblocked: set[int] = set()  # calls a later-sent call was answered while they waited
    overlapped: set[int] = set()  # calls another call was in flight with
    limiter = anyio.Semaphore(jobs)
    broken = False

    async def make(index: int) -> None:
        nonlocal broken
        async with limiter:
            if broken or stop():
                return
            if waiting:
                overlapped.update([*waiting, index])
            sent = waiting[index] = next(order)
            outcome = await prober.call_on(session, calls[index].name, calls[index].arguments)
            del waiting[index]
            if not broke(outcome):
                unblocked.update(other for other, when in waiting.items() if when < sent)
            elif not (_timed_out(outcome) and index in unblocked):
                broken = True
                return
            if outcome.stderr and index in overlapped and not _answered_plainly(outcome):
                return  # what the server wrote may be another call's: made again alone
            outcomes[index] = outcome
            done(index, outcome)

    async with anyio.create_task_group() as group:
        for index in dict.fromkeys([*first, *range(len(calls))]):
            group.start_soon(make, index)
    if broken:
        await prober.close()
    return outcomes


def _answered_plainly(outcome: CallOutcome) -> bool:
    """A result that is not an error: nothing a report shows the server's stderr with."""
    return outcome.failure is None and (outcome.result or {}).get("isError") is not True


def _timed_out(outcome: CallOutcome) -> bool:
    return outcome.failure is not None and outcome.failure.kind is FailureKind.TIMEOUT
