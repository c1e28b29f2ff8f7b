"""A case whose server sits idle while the case waits for an answer (a timer, the network, a sleep) gives
its slot to the next case, so that a slow but idle server does not keep a core unused."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import anyio

from toolproof.mcp.errors import is_cancellation, leaf
from toolproof.mcp.process import cpu_ticks

IDLE_WINDOW_S = 0.1
IDLE_TICKS = 1
"""At most this many clock ticks (10 ms each on Linux) of CPU in a window: the server waits, not works."""


@asynccontextmanager
async def lending_when_idle(pid: int | None, lend: Callable[[], None]) -> AsyncIterator[None]:
    """While the body runs, call `lend` once the server process `pid` (with its descendants) used at most
    IDLE_TICKS of CPU over IDLE_WINDOW_S. Without a local process (`pid` None: http, sse) nothing is lent.
    Exceptions leave as the body raised them, never wrapped in an exception group."""
    if pid is None:
        yield
        return
    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_lend_when_idle, pid, lend)
            yield
            tasks.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        error = leaf(group)
        if is_cancellation(error):
            raise
        raise error from error.__cause__


async def _lend_when_idle(pid: int, lend: Callable[[], None]) -> None:
    before = cpu_ticks(pid)
    while before is not None:
        await anyio.sleep(IDLE_WINDOW_S)
        now = cpu_ticks(pid)
        if now is not None and now - before <= IDLE_TICKS:
            lend()
            return
        before = now
