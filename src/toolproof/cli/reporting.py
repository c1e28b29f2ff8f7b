"""Build the report sinks a command asked for, choose the cases to run from the last run's failures, and turn
verdicts into an exit status."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import TextIO, TypeVar

from toolproof.model.events import Sink
from toolproof.model.result import CaseResult, Status
from toolproof.report.json_report import STDOUT, JsonReport
from toolproof.report.junit import JUnitReport
from toolproof.report.sinks import Broadcast
from toolproof.report.terminal import TerminalReport, Verbosity

T = TypeVar("T")
STEP_SUMMARY = "GITHUB_STEP_SUMMARY"


def build_sinks(
    args: argparse.Namespace,
    secrets: Iterable[str],
    *,
    terminal: TextIO | None = None,
    environ: dict[str, str] | None = None,
) -> Broadcast:
    """Terminal output (on `terminal`, else stdout; stderr when the JSON report goes to stdout) plus every
    report the options name; the Markdown report also goes to `$GITHUB_STEP_SUMMARY` when that is set."""
    from toolproof.report.badge import BadgeReport
    from toolproof.report.baseline import BaselineWriter
    from toolproof.report.durations import DurationsReport
    from toolproof.report.history import LastFailedWriter
    from toolproof.report.html import HtmlReport
    from toolproof.report.markdown import MarkdownReport
    from toolproof.report.notes import BaselineNote, ThresholdNote

    env = os.environ if environ is None else environ
    secret_set = set(secrets)
    json_path = getattr(args, "json", None)
    verbosity = Verbosity.QUIET if args.quiet else Verbosity.VERBOSE if args.verbose else Verbosity.NORMAL
    stream = terminal or (sys.stderr if json_path == STDOUT else sys.stdout)
    baseline = getattr(args, "baseline", None)
    title = f"toolproof {getattr(args, 'command', None) or 'run'}"
    sinks: list[Sink] = [TerminalReport(stdout=stream, verbosity=verbosity, secrets=secret_set)]
    if getattr(args, "durations", None) is not None:
        sinks.append(DurationsReport(args.durations, stdout=stream, secrets=secret_set))
    if baseline is not None:
        sinks.append(BaselineNote(baseline, stdout=stream, secrets=secret_set))
    if getattr(args, "threshold", None) is not None:
        sinks.append(ThresholdNote(args.threshold, stdout=stream))
    if json_path:
        sinks.append(JsonReport(json_path, secrets=secret_set, baseline=baseline, title=title))
    if args.junit:
        sinks.append(JUnitReport(args.junit, secrets=secret_set))
    markdown = [path for path in (getattr(args, "markdown", None), env.get(STEP_SUMMARY)) if path]
    sinks += [MarkdownReport(path, secret_set, title=title, baseline=baseline) for path in markdown]
    if getattr(args, "html", None):
        sinks.append(HtmlReport(args.html, secret_set, baseline=baseline, title=title))
    if getattr(args, "badge", None):
        sinks.append(BadgeReport(args.badge))
    if getattr(args, "save_baseline", None):
        sinks.append(BaselineWriter(args.save_baseline, secret_set))
    sinks.append(LastFailedWriter())
    return Broadcast(sinks)


def prioritised(items: Sequence[T], node_id: Callable[[T], str | None], args: argparse.Namespace) -> list[T]:
    """The items to run under --last-failed / --failed-first (all, in order, without either)."""
    from toolproof.report.history import last_failed, prioritise

    only = getattr(args, "last_failed", False)
    if not only and not getattr(args, "failed_first", False):
        return list(items)
    return prioritise(items, node_id, last_failed(), only=only)


def stopped_early(results: Sequence[CaseResult], maxfail: int | None) -> list[CaseResult]:
    """The results up to and including the `maxfail`-th failure (all of them without `maxfail`)."""
    if not maxfail:
        return list(results)
    failed = 0
    for index, result in enumerate(results):
        failed += result.status in (Status.FAIL, Status.ERROR)
        if failed >= maxfail:
            return list(results[: index + 1])
    return list(results)


def exit_status(results: Iterable[CaseResult]) -> int:
    """0 when every case passed or was skipped, 1 when any failed, 2 when any could not be loaded."""
    statuses = {result.status for result in results}
    if Status.ERROR in statuses:
        return 2
    return 1 if Status.FAIL in statuses else 0


def verdict(args: argparse.Namespace, results: Sequence[CaseResult]) -> int:
    """The exit status of a command's run under its options.

    Without --threshold: `exit_status`, and 1 when --baseline finds a regression. With --threshold (ci):
    2 when a case could not be loaded, 5 when no case ran, 1 when the pass rate is below the threshold or,
    with --fail-on-regression, a case regressed; else 0.
    """
    from toolproof.report.baseline import compare
    from toolproof.report.gate import meets_threshold, pass_percentage

    baseline = getattr(args, "baseline", None)
    regressed = baseline is not None and bool(compare(baseline, results).regressions)
    threshold = getattr(args, "threshold", None)
    if threshold is None:
        status = exit_status(results)
        return 1 if status == 0 and regressed else status
    if any(result.status is Status.ERROR for result in results):
        return 2
    if pass_percentage(results) is None:
        return 5
    if not meets_threshold(results, threshold):
        return 1
    return 1 if regressed and getattr(args, "fail_on_regression", False) else 0
