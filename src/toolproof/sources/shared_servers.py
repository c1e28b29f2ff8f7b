"""Servers kept open across cases (`--reuse-server`): one pool per server identity, each server lent to one
case at a time, stopped when it misbehaves, when no case that could borrow it is left to come, and when the
run ends. A case that finds no idle server while one is lent waits, for as long as a new server of its
identity took to open, for one to be given back before it starts another: a quick case is over long before a
new server has started (mcp-server-time: about a second of CPU), and a slow one costs at most twice that."""

from __future__ import annotations

import itertools
import time
from contextlib import suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import anyio
import anyio.abc

from toolproof.mcp.session import open_session
from toolproof.mcp.spec import ConnectSpec

if TYPE_CHECKING:
    from toolproof.mcp.client import Session


@dataclass
class Lease:
    """One shared server lent to one case: its session, its number in this run (cases that show the same
    number shared it), and whether an earlier case used it already."""

    session: Session
    number: int
    used: bool
    _closed: anyio.Event = field(default_factory=anyio.Event)


@dataclass
class _Waiter:
    """A case waiting for a lent server to be given back: set with the lease once it is."""

    given: anyio.Event = field(default_factory=anyio.Event)
    lease: Lease | None = None


class SharedServers:
    """Open sessions by identity (the connection spec without its request timeout). A lease is given back
    healthy (kept for the next case with the same identity) or broken (its server is stopped).

    `expect` announces the cases that will come for an identity; each `borrow` or `forgo` is one of them
    arriving. Once every announced case has arrived, an idle server of that identity serves nobody again, so
    it is stopped at once, while the rest of the run goes on, rather than when the run ends. An identity
    never announced keeps its idle servers until `close_all`.
    """

    def __init__(self, group: anyio.abc.TaskGroup) -> None:
        self._group = group
        self._idle: dict[str, list[Lease]] = {}
        self._to_come: dict[str, int] = {}
        self._numbers = itertools.count(1)
        self._lent: dict[str, int] = {}  # servers lent out (or starting), per identity
        self._waiting: dict[str, list[_Waiter]] = {}
        self._open_s: dict[str, float] = {}  # seconds the last new server of the identity took to open

    def expect(self, spec: ConnectSpec, cases: int = 1) -> None:
        """So many more cases of this identity will each borrow or forgo a server."""
        key = identity(spec)
        self._to_come[key] = self._to_come.get(key, 0) + cases

    def forgo(self, spec: ConnectSpec) -> None:
        """An announced case of this identity arrived and will not borrow (it runs on a fresh server)."""
        key = identity(spec)
        if self._arrive(key):
            self._close_idle(key)

    async def borrow(self, spec: ConnectSpec, *, arriving: bool = True) -> Lease:
        """An idle server of this identity, one given back meanwhile (`_handed`), or a newly started one.
        `arriving`: this is an announced case (False for a borrow on the run's own behalf, such as listing the
        identity's tools). Raises RequestFailed like `open_session` when a new server cannot be started or
        initialized."""
        key = identity(spec)
        last = self._arrive(key) if arriving else False
        idle = self._idle.get(key)
        if idle:
            lease: Lease | None = idle.pop()
            self._lent[key] = self._lent.get(key, 0) + 1
        else:
            lease = await self._handed(key)  # stays counted as lent
        if lease is None:
            self._lent[key] = self._lent.get(key, 0) + 1
            try:
                started = time.perf_counter()
                session, closed = await self._group.start(self._hold, spec)
                self._open_s[key] = time.perf_counter() - started
            except BaseException:
                self._lent[key] -= 1
                raise
            return Lease(session=session, number=next(self._numbers), used=False, _closed=closed)
        lease.used = True
        if last:
            self._close_idle(key)
        return lease

    async def _handed(self, key: str) -> Lease | None:
        """A server of the identity given back within the time its last new server took to open, while one
        is lent; None at once when none is lent or none has opened yet."""
        patience = self._open_s.get(key)
        if patience is None or not self._lent.get(key):
            return None
        waiter = _Waiter()
        self._waiting.setdefault(key, []).append(waiter)
        try:
            with anyio.move_on_after(patience):
                await waiter.given.wait()
        except BaseException:
            if waiter.lease is not None:  # handed over as this case was cancelled: it serves the next
                self._give_back(key, waiter.lease, healthy=True)
            raise
        finally:
            if waiter.lease is None:
                self._waiting[key].remove(waiter)
        return waiter.lease

    def give_back(self, spec: ConnectSpec, lease: Lease, *, healthy: bool) -> None:
        """A lease comes back: handed to a case waiting for one, kept idle for the cases still to come, or
        (broken, or nobody left to come) its server stopped."""
        self._give_back(identity(spec), lease, healthy=healthy)

    def _give_back(self, key: str, lease: Lease, *, healthy: bool) -> None:
        if healthy:
            lease.session.forget_traffic()
            waiting = self._waiting.get(key)
            if waiting:
                waiter = waiting.pop(0)
                waiter.lease = lease
                waiter.given.set()
                return
        self._lent[key] -= 1
        if healthy and not self._all_arrived(key):
            self._idle.setdefault(key, []).append(lease)
            return
        lease._closed.set()

    def close_all(self) -> None:
        """Stop every idle server (the task group then waits for them to exit)."""
        for key in list(self._idle):
            self._close_idle(key)

    def _arrive(self, key: str) -> bool:
        """Count one announced case of `key` as arrived; True when that was the last one."""
        if key not in self._to_come:
            return False
        self._to_come[key] -= 1
        return self._all_arrived(key)

    def _all_arrived(self, key: str) -> bool:
        return self._to_come.get(key, 1) <= 0

    def _close_idle(self, key: str) -> None:
        for lease in self._idle.pop(key, []):
            lease._closed.set()

    @staticmethod
    async def _hold(
        spec: ConnectSpec, *, task_status: anyio.abc.TaskStatus[tuple[Session, anyio.Event]]
    ) -> None:
        """Open the session, hand it out, keep it open until it is given back broken or the pool closes.
        A server that dies while held is noticed by the case using it; it never fails the run."""
        closed = anyio.Event()
        started = False
        try:
            async with open_session(spec) as session:
                task_status.started((session, closed))
                started = True
                await closed.wait()
        except Exception:
            if not started:
                raise
        with suppress(Exception):
            closed.set()


def identity(spec: ConnectSpec) -> str:
    """What makes two cases' servers interchangeable: everything in the spec but the request timeout."""
    return repr(
        (
            spec.transport,
            spec.command,
            spec.args,
            sorted(spec.env.items()),
            spec.cwd,
            spec.url,
            sorted(spec.headers.items()),
            spec.mocks,
            spec.protocol,
            spec.max_message_bytes,
            spec.auth,
            spec.token_cache,
        )
    )
