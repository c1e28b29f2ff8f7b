"""Run a server suite none of whose cases starts or contacts a server (every case skipped, or a trajectory
that reads a recorded trace) in order, in the calling thread (`run/in_order.py`): the same events and
verdicts as the concurrent run (`run/server_suite.py`), without importing anyio or asyncio."""

from __future__ import annotations

import signal
from collections.abc import Coroutine, Iterator, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import Any, TypeVar

from toolproof.load.errors import LoadError
from toolproof.model.events import Sink
from toolproof.model.result import CaseResult
from toolproof.model.server_case import Case, TrajectoryBlock
from toolproof.run.in_order import run_in_order
from toolproof.run.interrupt import Interrupted
from toolproof.run.load_errors import Broken, by_document, met_load_error
from toolproof.run.server_case import execute_case
from toolproof.sources.options import ServerOptions

T = TypeVar("T")

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""The signals that stop a run cleanly, as `run/interrupt.py` says."""


def starts_server(case: Case) -> bool:
    """Whether the case may start a server: it is no trajectory (which reads a trace) and not skipped outright
    (`skip: true`; a case skipped for an unset variable is decided when it runs)."""
    return not isinstance(case.block, TrajectoryBlock) and not case.skip


def starts_no_server(items: Sequence[Case | LoadError]) -> bool:
    """Whether no case among `items` may start or contact a server (load errors start none)."""
    return not any(isinstance(item, Case) and starts_server(item) for item in items)


def run_serverless_suite(
    items: Sequence[Case | LoadError],
    options: ServerOptions,
    *,
    sink: Sink,
    maxfail: int = 0,
    handle_signals: bool = False,
) -> list[CaseResult] | Interrupted:
    """Every case's verdict (one ERROR result per document that did not load), in suite order, as
    `run_server_suite` gives them with one trial for `items` that start no server (`starts_no_server`;
    several trials run concurrently there, their progress interleaved as they finish). With
    `handle_signals`, SIGINT, SIGTERM and SIGHUP stop the run (its end reported) and give `Interrupted`."""
    if not starts_no_server(items):
        raise ValueError("a case of this suite may start a server: run it with run_server_suite")

    def execute(item: Case | Broken) -> list[CaseResult]:
        if not isinstance(item, Case):
            return [met_load_error(sink, item)]
        return [_without_loop(execute_case(item, options))]

    def name_of(item: Case | Broken) -> str:
        return item.name if isinstance(item, Case) else item[0].case_name

    entries = by_document(items)
    if not handle_signals:
        return run_in_order(entries, execute, name_of, sink=sink, maxfail=maxfail)
    try:
        with _stopped_by_signals():
            return run_in_order(entries, execute, name_of, sink=sink, maxfail=maxfail)
    except _Stopped as stop:
        return Interrupted(stop.signal)
    except KeyboardInterrupt:  # Ctrl-C just before the signals were caught, or just after
        return Interrupted(signal.SIGINT)


def _without_loop(coroutine: Coroutine[Any, Any, T]) -> T:
    """The value of a coroutine that awaits nothing (a case that starts no server), with no event loop."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        value: T = done.value
        return value
    coroutine.close()
    raise RuntimeError("a case that starts no server waited for something")


class _Stopped(KeyboardInterrupt):
    """A stop signal arrived: a KeyboardInterrupt, so that the run reports its end as cancelled."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.signal = signal.Signals(number)


def _raise_stopped(number: int, frame: FrameType | None) -> None:
    raise _Stopped(number)


@contextmanager
def _stopped_by_signals() -> Iterator[None]:
    """Within the block, a stop signal raises `_Stopped`; the former handlers come back after it."""
    former = {number: signal.signal(number, _raise_stopped) for number in STOP_SIGNALS}
    try:
        yield
    finally:
        for number, handler in former.items():
            signal.signal(number, handler)
