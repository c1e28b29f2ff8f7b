"""The exit status of every command, and the error that means "the command was used wrongly".

Imports nothing of toolproof, so every layer may use it.
"""

from __future__ import annotations

import signal
from enum import IntEnum


class ExitCode(IntEnum):
    """How a command ended. A stop by signal N is `ExitCode.stopped_by(N)`: 128 + N, as a shell reports it."""

    OK = 0  # every case passed (or was skipped)
    FAILED = 1  # a case failed
    USAGE = 2  # a usage error, a file that could not be loaded, a server or agent that could not be reached
    NO_TESTS = 5  # nothing ran: no case was found (as pytest), or `check` had no recorded run for any case

    @staticmethod
    def stopped_by(number: signal.Signals | int) -> int:
        """The status of a command stopped by signal `number` (130 for SIGINT, 143 for SIGTERM)."""
        return 128 + int(number)


class UsageError(ValueError):
    """The command or call was given something it cannot use (a missing path, a bad flag value): nothing ran.
    Its exit status is `ExitCode.USAGE`."""
