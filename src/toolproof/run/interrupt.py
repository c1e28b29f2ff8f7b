"""Run a command's async work so that SIGTERM, SIGINT (Ctrl-C) and SIGHUP stop it cleanly.

A run calls `run_until_signal(main)` in place of `anyio.run(main)`; the command reports an `Interrupted`
outcome with `outcome.report(name)`. On a signal `main` is cancelled: its servers (and everything they
started) are stopped and fixture copies removed by the cleanup of the code `main` runs, and the reports of
what finished are written. The exit status is then 128 + the signal number (130 for Ctrl-C, 143 for
SIGTERM, 129 for SIGHUP), as a shell reports a process ended by that signal. An exception `main` raises comes
out as itself.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from toolproof.exit_codes import ExitCode

T = TypeVar("T")


@dataclass(frozen=True)
class Interrupted:
    """The work was stopped by `signal`."""

    signal: signal.Signals

    @property
    def status(self) -> int:
        """The exit status for it: 128 + the signal number."""
        return ExitCode.stopped_by(self.signal)

    def report(self, command: str) -> int:
        """Say in one line on stderr that `command` (e.g. "toolproof run") was stopped; return `status`."""
        print(f"{command}: stopped by {self.signal.name} (exit status {self.status})", file=sys.stderr)
        return self.status


def run_until_signal(main: Callable[[], Awaitable[T]]) -> T | Interrupted:
    """`anyio.run(main)`, except that SIGTERM, SIGINT or SIGHUP cancels `main` and gives `Interrupted`."""
    import anyio

    from toolproof.mcp.signals import cancelled_by_signals

    async def guarded() -> T | Interrupted:
        async with cancelled_by_signals() as caught:
            return await main()
        assert caught.signal is not None  # only a signal ends the block without a return
        return Interrupted(caught.signal)

    try:
        return anyio.run(guarded)
    except KeyboardInterrupt:  # Ctrl-C just before the signals were caught, or just after
        return Interrupted(signal.SIGINT)
    except BaseExceptionGroup as group:  # what `main` raised, grouped by the task group of the watcher
        raise _alone(group) from None


def _alone(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The one exception inside nested groups of one; the group itself when it holds several."""
    found: BaseException = group
    while isinstance(found, BaseExceptionGroup) and len(found.exceptions) == 1:
        found = found.exceptions[0]
    return found
