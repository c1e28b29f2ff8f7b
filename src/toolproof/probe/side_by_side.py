"""Several servers probed side by side in one process, their results passed on in server order.

Each server has a probe of its own (its own process, session and restarts), exactly as when it is probed
alone, so a verdict never depends on the other servers; only the waiting overlaps. What a probe reports goes
on at once while every server before it has finished, and is held until then otherwise, so the report reads
server by server whatever order the servers finish in. A server known to be slow can start first, the
others once its slow calls are under way.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, Generic, TypeVar

import anyio

T = TypeVar("T")


class ServerOrder(Generic[T]):
    """Passes on the items of `servers` probes to `emit`: server 0's as they come, each later server's once
    every server before it has finished."""

    def __init__(self, servers: int, emit: Callable[[T], None]) -> None:
        self._held: list[list[T]] = [[] for _ in range(servers)]
        self._finished = [False] * servers
        self._current = 0
        self._emit = emit

    def add(self, server: int, item: T) -> None:
        if server == self._current:
            self._emit(item)
        else:
            self._held[server].append(item)

    def finish(self, server: int) -> None:
        """Server `server` has reported all it will; pass on what the servers after it hold, in order."""
        self._finished[server] = True
        while self._current < len(self._finished) and self._finished[self._current]:
            self._current += 1
            if self._current < len(self._held):
                held, self._held[self._current] = self._held[self._current], []
                for item in held:
                    self._emit(item)


Probe = Callable[[int, Callable[[], None]], Coroutine[Any, Any, None]]
"""A probe of server `index`, given the function it calls once it is under way."""


async def each_server(servers: int, probe: Probe, lead: int | None = None) -> None:
    """Run `probe(index, started)` for every server at once; return when all have ended. With `lead`, that
    server starts alone and the others once its probe calls `started()` (or ends): a server whose slow
    tools set the probe's length gets them under way before the others compete for the CPU."""
    released = anyio.Event()

    async def run(index: int) -> None:
        if lead is not None and index != lead:
            await released.wait()
        try:
            await probe(index, released.set)
        finally:
            if index == lead:
                released.set()

    async with anyio.create_task_group() as group:
        for index in range(servers):
            group.start_soon(run, index)
