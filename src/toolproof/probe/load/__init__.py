"""`toolproof load`: how a server holds up under many requests at once.

`run_load(plan, tally)` (behind the API's `measure_load`) opens `plan.sessions` sessions (a server process
each over stdio, a connection each over HTTP), warms each up with `plan.warmup` calls, then keeps
`plan.concurrency` tools/call requests in flight on every session until `plan.requests` have been made or
`plan.duration_s` has passed; its `Tally` reports throughput, latency percentiles, errors by kind and, for
stdio, the servers' peak resident memory and CPU time. Every loop is bounded in count (`MAX_REQUESTS`) and
time (`MAX_TIME_S`, and each request by the spec's timeout); a session whose connection breaks stops, and the
others go on.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

from toolproof.mcp.errors import RequestFailed
from toolproof.mcp.process import cpu_ticks, resident_bytes
from toolproof.mcp.session import open_session
from toolproof.model.result import FailureKind
from toolproof.probe.load.stats import LoadReport, summarize

if TYPE_CHECKING:
    from toolproof.mcp.client import Session
    from toolproof.mcp.spec import ConnectSpec

__all__ = ["LoadError", "LoadPlan", "LoadReport", "Tally", "run_load"]

MAX_REQUESTS = 1_000_000
MAX_TIME_S = 600.0
SAMPLE_INTERVAL_S = 0.05
FORGET_EVERY = 1000  # requests of a session between two drops of its recorded traffic
BROKEN = frozenset({FailureKind.TRANSPORT.value, FailureKind.PROTOCOL.value})


@dataclass(frozen=True)
class LoadPlan:
    """What to load: `tool` with `arguments` on the server of `spec`, `concurrency` requests in flight on
    each of `sessions` sessions, after `warmup` calls per session, for `requests` requests in all or for
    `duration_s` seconds (`requests` wins when both are given; neither: `DEFAULT_DURATION_S`)."""

    spec: ConnectSpec
    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)
    concurrency: int = 1
    sessions: int = 1
    requests: int | None = None
    duration_s: float | None = None
    warmup: int = 0


DEFAULT_DURATION_S = 10.0


class LoadError(Exception):
    """The server could not be started or reached; nothing was measured."""

    def __init__(self, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.stderr = stderr


@dataclass
class Tally:
    """What the measured requests gave so far (latencies of the answered ones, errors by kind) and the
    servers' memory and CPU as last sampled: a run stopped halfway still reports it."""

    left: int
    window_s: float
    done: int = 0
    latencies: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    pids: list[int] = field(default_factory=list)
    peak_rss: int = 0
    cpu_first: dict[int, int] = field(default_factory=dict)
    cpu_last: dict[int, int] = field(default_factory=dict)
    sessions: int = 0
    started: float | None = None
    ended: float | None = None
    deadline: float = math.inf

    @classmethod
    def of(cls, plan: LoadPlan) -> Tally:
        """An empty tally with the plan's budget of requests and time."""
        budget = plan.requests if plan.requests is not None else MAX_REQUESTS
        window = MAX_TIME_S if plan.requests is not None else plan.duration_s or DEFAULT_DURATION_S
        return cls(left=min(budget, MAX_REQUESTS), window_s=min(window, MAX_TIME_S))

    def begin(self, pids: list[int]) -> None:
        """Start the clock, with the servers `pids` (stdio) to watch."""
        self.pids = pids
        self.sample()
        self.cpu_first = dict(self.cpu_last)
        self.started = time.perf_counter()
        self.deadline = time.monotonic() + self.window_s

    def take(self) -> bool:
        """Whether one more request may start (and count it against the budget)."""
        if self.left <= 0 or time.monotonic() >= self.deadline:
            return False
        self.left -= 1
        return True

    def sample(self) -> None:
        """Note the servers' memory (keeping the highest) and CPU."""
        self.peak_rss = max(self.peak_rss, sum(resident_bytes(pid) or 0 for pid in self.pids))
        for pid in self.pids:
            ticks = cpu_ticks(pid)
            if ticks is not None:
                self.cpu_last[pid] = ticks

    def report(self, plan: LoadPlan, stopped_by: str | None = None) -> LoadReport:
        """What was measured, from the start of the clock to its end (or to now)."""
        started = self.started if self.started is not None else time.perf_counter()
        ended = self.ended if self.ended is not None else time.perf_counter()
        ticks = sum(self.cpu_last.get(pid, 0) - self.cpu_first.get(pid, 0) for pid in self.pids)
        return summarize(
            requests=self.done,
            latencies=self.latencies,
            errors=dict(self.errors),
            elapsed_s=ended - started,
            cpu_ticks=ticks if self.pids else None,
            peak_rss=self.peak_rss if self.pids else None,
            sessions=self.sessions,
            concurrency=plan.concurrency,
            stopped_by=stopped_by,
        )


async def run_load(plan: LoadPlan, tally: Tally) -> None:
    """Open the sessions, warm them up and measure into `tally`; raises LoadError when a session cannot be
    opened. Cancelled (by a signal), `tally` holds what was measured until then."""
    async with AsyncExitStack() as stack:
        sessions: list[Session] = []
        for _ in range(plan.sessions):
            try:
                sessions.append(await stack.enter_async_context(open_session(plan.spec)))
            except RequestFailed as error:
                raise LoadError(error.failure.message, error.stderr) from None
        tally.sessions = len(sessions)
        async with anyio.create_task_group() as tasks:
            for session in sessions:
                tasks.start_soon(_warm_up, session, plan)
        await _measure(sessions, plan, tally)


async def _warm_up(session: Session, plan: LoadPlan) -> None:
    for _ in range(plan.warmup):
        await _call(session, plan)


async def _measure(sessions: list[Session], plan: LoadPlan, tally: Tally) -> None:
    tally.begin([pid for pid in (session.pid for session in sessions) if pid is not None])
    try:
        async with anyio.create_task_group() as sampling:
            sampling.start_soon(_sample, tally)
            async with anyio.create_task_group() as workers:
                for session in sessions:
                    broken: list[str] = []
                    for _ in range(plan.concurrency):
                        workers.start_soon(_worker, session, plan, tally, broken)
            sampling.cancel_scope.cancel()
    finally:
        tally.ended = time.perf_counter()
    tally.sample()


async def _worker(session: Session, plan: LoadPlan, tally: Tally, broken: list[str]) -> None:
    """Make requests on `session` while the budget lasts and the connection holds (`broken` is shared by the
    session's workers: once one of them sees the connection break, all stop)."""
    made = 0
    while not broken and tally.take():
        started = time.perf_counter()
        kind = await _call(session, plan)
        elapsed = time.perf_counter() - started
        if kind is None or kind in (FailureKind.TOOL_ERROR.value, FailureKind.RPC_ERROR.value):
            tally.latencies.append(elapsed)  # the server answered
        if kind is not None:
            tally.errors[kind] += 1
        if kind in BROKEN:
            broken.append(kind)
        tally.done += 1
        made += 1
        if made % FORGET_EVERY == 0:
            session.forget_traffic()


async def _call(session: Session, plan: LoadPlan) -> str | None:
    """One tools/call: None when it succeeded, else the kind of its failure (`tool_error` for an isError
    result, `timeout` when no answer came within the spec's limit)."""
    try:
        with anyio.fail_after(plan.spec.request_timeout):
            params = {"name": plan.tool, "arguments": plan.arguments}
            result = await session.request("tools/call", params, during=f"tools/call {plan.tool}")
    except RequestFailed as error:
        return error.failure.kind.value
    except TimeoutError:
        return FailureKind.TIMEOUT.value
    return FailureKind.TOOL_ERROR.value if result.get("isError") else None


async def _sample(tally: Tally) -> None:
    while tally.pids:
        tally.sample()
        await anyio.sleep(SAMPLE_INTERVAL_S)
