"""`toolproof load`: how a server holds up under many requests at once.

`measure(plan)` opens `plan.sessions` sessions (a server process each over stdio, a connection each over
HTTP), warms each up with `plan.warmup` calls, then keeps `plan.concurrency` tools/call requests in flight on
every session until `plan.requests` have been made or `plan.duration_s` has passed, and reports throughput,
latency percentiles, errors by kind and, for stdio, the servers' peak resident memory and CPU time. Every loop
is bounded in count (`MAX_REQUESTS`) and time (`MAX_TIME_S`, and each request by the spec's timeout); a
session whose connection breaks stops, and the others go on.
"""

from __future__ import annotations

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

__all__ = ["LoadPlan", "LoadReport", "measure"]

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
class _Tally:
    """What the measured requests gave: latencies of the answered ones, errors by kind."""

    left: int
    deadline: float
    made: int = 0
    latencies: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    peak_rss: int = 0

    def take(self) -> bool:
        """Whether one more request may start (and count it)."""
        if self.left <= 0 or time.monotonic() >= self.deadline:
            return False
        self.left -= 1
        self.made += 1
        return True


def measure(plan: LoadPlan) -> LoadReport:
    """Run the plan and report what it measured; raises LoadError when a session cannot be opened."""
    return anyio.run(run_load, plan)


async def run_load(plan: LoadPlan) -> LoadReport:
    """`measure` inside an event loop."""
    async with AsyncExitStack() as stack:
        sessions: list[Session] = []
        for _ in range(plan.sessions):
            try:
                sessions.append(await stack.enter_async_context(open_session(plan.spec)))
            except RequestFailed as error:
                raise LoadError(error.failure.message, error.stderr) from None
        async with anyio.create_task_group() as tasks:
            for session in sessions:
                tasks.start_soon(_warm_up, session, plan)
        return await _measured(sessions, plan)


async def _warm_up(session: Session, plan: LoadPlan) -> None:
    for _ in range(plan.warmup):
        await _call(session, plan)


async def _measured(sessions: list[Session], plan: LoadPlan) -> LoadReport:
    budget = plan.requests if plan.requests is not None else MAX_REQUESTS
    window = MAX_TIME_S if plan.requests is not None else plan.duration_s or DEFAULT_DURATION_S
    tally = _Tally(left=min(budget, MAX_REQUESTS), deadline=time.monotonic() + min(window, MAX_TIME_S))
    pids = [pid for pid in (session.pid for session in sessions) if pid is not None]
    before = {pid: cpu_ticks(pid) for pid in pids}
    started = time.perf_counter()
    async with anyio.create_task_group() as sampling:
        sampling.start_soon(_sample_memory, pids, tally)
        async with anyio.create_task_group() as workers:
            for session in sessions:
                broken: list[str] = []
                for _ in range(plan.concurrency):
                    workers.start_soon(_worker, session, plan, tally, broken)
        elapsed = time.perf_counter() - started
        sampling.cancel_scope.cancel()
    _sample_once(pids, tally)
    ticks = sum((cpu_ticks(pid) or 0) - (before[pid] or 0) for pid in pids) if pids else None
    return summarize(
        requests=tally.made,
        latencies=tally.latencies,
        errors=dict(tally.errors),
        elapsed_s=elapsed,
        cpu_ticks=ticks,
        peak_rss=tally.peak_rss if pids else None,
        sessions=len(sessions),
        concurrency=plan.concurrency,
    )


async def _worker(session: Session, plan: LoadPlan, tally: _Tally, broken: list[str]) -> None:
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


async def _sample_memory(pids: list[int], tally: _Tally) -> None:
    while pids:
        _sample_once(pids, tally)
        await anyio.sleep(SAMPLE_INTERVAL_S)


def _sample_once(pids: list[int], tally: _Tally) -> None:
    """Keep the highest resident memory of the servers together seen so far."""
    now = sum(resident_bytes(pid) or 0 for pid in pids)
    tally.peak_rss = max(tally.peak_rss, now)
