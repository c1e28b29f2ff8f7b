"""Servers kept open across cases (`--reuse-server`): one pool per server identity, each server lent to one
case at a time, closed when it misbehaves and when the run ends."""

from __future__ import annotations

import itertools
from contextlib import suppress
from dataclasses import dataclass, field

import anyio
import anyio.abc

from toolproof.mcp.session import Session, open_session
from toolproof.mcp.spec import ConnectSpec


@dataclass
class Lease:
    """One shared server lent to one case: its session, its number in this run (cases that show the same
    number shared it), and whether an earlier case used it already."""

    session: Session
    number: int
    used: bool
    _closed: anyio.Event = field(default_factory=anyio.Event)


class SharedServers:
    """Open sessions by identity (the connection spec without its request timeout). A lease is given back
    healthy (kept for the next case with the same identity) or broken (its server is stopped)."""

    def __init__(self, group: anyio.abc.TaskGroup) -> None:
        self._group = group
        self._idle: dict[str, list[Lease]] = {}
        self._numbers = itertools.count(1)

    async def borrow(self, spec: ConnectSpec) -> Lease:
        """An idle server of this identity, or a newly started one. Raises RequestFailed like
        `open_session` when a new server cannot be started or initialized."""
        idle = self._idle.get(identity(spec))
        if idle:
            lease = idle.pop()
            lease.used = True
            return lease
        session, closed = await self._group.start(self._hold, spec)
        return Lease(session=session, number=next(self._numbers), used=False, _closed=closed)

    def give_back(self, spec: ConnectSpec, lease: Lease, *, healthy: bool) -> None:
        if healthy:
            lease.session.forget_traffic()
            self._idle.setdefault(identity(spec), []).append(lease)
        else:
            lease._closed.set()

    def close_all(self) -> None:
        """Stop every idle server (the task group then waits for them to exit)."""
        for leases in self._idle.values():
            for lease in leases:
                lease._closed.set()
        self._idle.clear()

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
        )
    )
