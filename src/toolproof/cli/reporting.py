"""Build the report sinks a command asked for, and turn verdicts into an exit status."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from typing import TextIO

from toolproof.model.events import Sink
from toolproof.model.result import CaseResult, Status
from toolproof.report.json_report import JsonReport
from toolproof.report.junit import JUnitReport
from toolproof.report.sinks import Broadcast
from toolproof.report.terminal import TerminalReport, Verbosity


def build_sinks(
    args: argparse.Namespace, secrets: Iterable[str], *, terminal: TextIO | None = None
) -> Broadcast:
    """Terminal output (on `terminal`, else stdout) plus the file reports named by --json / --junit."""
    secret_set = set(secrets)
    json_to_stdout = args.json == "-"
    verbosity = Verbosity.QUIET if args.quiet else Verbosity.VERBOSE if args.verbose else Verbosity.NORMAL
    stream = terminal or (sys.stderr if json_to_stdout else sys.stdout)
    sinks: list[Sink] = [TerminalReport(stdout=stream, verbosity=verbosity, secrets=secret_set)]
    if args.json:
        sinks.append(JsonReport(args.json, secrets=secret_set))
    if args.junit:
        sinks.append(JUnitReport(args.junit, secrets=secret_set))
    return Broadcast(sinks)


def exit_status(results: Iterable[CaseResult]) -> int:
    """0 when every case passed or was skipped, 1 when any failed, 2 when any could not be loaded."""
    statuses = {result.status for result in results}
    if Status.ERROR in statuses:
        return 2
    return 1 if Status.FAIL in statuses else 0
