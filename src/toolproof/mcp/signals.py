"""Stop early, but cleanly: turn SIGTERM, SIGINT and SIGHUP into a cancellation of the work in progress.

Without this a signal ends the process at once, and servers started in sessions of their own (with their
children, and the fixture copies they work on) outlive it. Inside `cancelled_by_signals`, the first such
signal cancels the block instead, so every `finally` and shielded cleanup runs; further signals are held
off until the block has finished cleaning up (cleanup is bounded: a server that does not stop is killed).
"""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import anyio

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


@dataclass
class Caught:
    """The signal that cancelled the block, once one has (None while none has)."""

    signal: signal.Signals | None = None


@asynccontextmanager
async def cancelled_by_signals(*signals: signal.Signals) -> AsyncIterator[Caught]:
    """Run the block until it ends or one of `signals` (default STOP_SIGNALS) arrives, which cancels it.

    The block's own code must run in the calling task (as it does in an `async with`). After a signal the
    `async with` ends normally once the block has been cancelled and cleaned up: check `caught.signal`.
    Must be entered in the main thread.
    """
    caught = Caught()
    with anyio.open_signal_receiver(*(signals or STOP_SIGNALS)) as received:
        async with anyio.create_task_group() as tasks:

            async def watch() -> None:
                async for number in received:
                    caught.signal = signal.Signals(number)
                    tasks.cancel_scope.cancel()
                    return

            tasks.start_soon(watch)
            try:
                yield caught
            finally:
                tasks.cancel_scope.cancel()
