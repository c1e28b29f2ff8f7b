"""A command's exit status from its `SuiteResult`, with one line on stderr when nothing ran or a signal
stopped it."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from toolproof.exit_codes import ExitCode

if TYPE_CHECKING:
    from toolproof.api import SuiteResult


def exit_status(command: str, result: SuiteResult) -> int:
    """`result.exit_code`; says why on stderr when the verdicts are a stop by signal, NO_TESTS or an empty
    shard."""
    if result.stopped_by is not None:
        from toolproof.run.interrupt import Interrupted

        return Interrupted(result.stopped_by).report(command)
    status = result.verdicts_code
    note = result.sharded.empty_note if result.sharded is not None and not result.results else None
    if note is not None:
        print(f"{command}: {note}; nothing to run", file=sys.stderr)
    if status == ExitCode.NO_TESTS:
        from toolproof.run.trace_suite import NOTHING_TO_CHECK

        why = "no case found"
        if result.results:
            empty = any(each.reason == NOTHING_TO_CHECK for each in result.results)
            why = NOTHING_TO_CHECK if empty else "no case had a recorded run to check"
        print(f"{command}: nothing ran: {why} (exit status {status})", file=sys.stderr)
    return result.exit_code
