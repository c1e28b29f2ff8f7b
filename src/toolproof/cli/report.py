"""`toolproof report`: merge saved JSON reports (the shards of a run) into one run and write any report of it;
one saved report alone renders as the HTML page it was, e.g. from a CI artifact."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

from toolproof.cli.options import add_output_options, percent_arg, report_files, reports
from toolproof.exit_codes import ExitCode, UsageError


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "report",
        help="merge saved JSON reports (the shards of a run) and write the reports of the whole",
        description="Merge the JSON reports written by --json (every shard of one --shard K/N split, in any "
        "order, or reports without a shard, joined) into one run, and write its reports as a run would: "
        "JSON, JUnit, Markdown, HTML, badge, baseline, the last-failed record. One report alone with only "
        "--html renders the page it was saved as. Exit status: 0 written (with --threshold or --baseline: "
        "as `toolproof ci` decides), 2 a report cannot be read, a shard is missing or repeated, or a file "
        "cannot be written.",
    )
    parser.add_argument(
        "reports", nargs="+", type=Path, metavar="REPORT.json", help="JSON reports written by --json"
    )
    add_output_options(parser, json_to_stdout=False)
    add_gate_options(parser, default_threshold=None)
    parser.set_defaults(handler=run)


def add_gate_options(parser: argparse.ArgumentParser, *, default_threshold: int | None) -> None:
    """--threshold and --fail-on-regression, which decide the exit status of `ci` and `report`."""
    parser.add_argument(
        "--threshold",
        dest="pass_percent",
        type=percent_arg,
        default=default_threshold,
        metavar="PERCENT",
        help="minimum pass percentage of the non-skipped cases"
        + (f" (default {default_threshold})" if default_threshold is not None else ""),
    )
    parser.add_argument(
        "--fail-on-regression",
        action="store_true",
        help="exit 1 when a case that passed in --baseline does not pass now (needs --baseline)",
    )


def run(args: argparse.Namespace) -> int:
    from toolproof.report.html import ReportFormatError

    if args.fail_on_regression and args.baseline is None:
        return _fail("--fail-on-regression needs --baseline FILE")
    try:
        if _page_only(args):
            return _render(args.reports[0], args.html)
    except ReportFormatError as error:
        return _fail(str(error))
    decided = args.pass_percent is not None or args.baseline is not None
    return merge(args, "toolproof report", decided=decided)


def merge(args: argparse.Namespace, command: str, *, decided: bool = True) -> int:
    """Merge `args.reports` into one run and write its reports; the exit status as `ci` decides it when
    `decided`, else 0."""
    from toolproof import api
    from toolproof.cli.outcome import exit_status
    from toolproof.cli.reporting import gated

    try:
        result = api.merge_reports(args.reports, reports=replace(reports(args), title=None))
    except UsageError as problem:
        return _fail(str(problem), command)
    return gated(args, result, exit_status(command, result)) if decided else ExitCode.OK


def _page_only(args: argparse.Namespace) -> bool:
    """Whether only the page of one saved report of a whole run is asked for."""
    from toolproof.report.json_read import read_report

    others = set(report_files(args)) - {"html"}
    if len(args.reports) != 1 or args.html is None or others or args.baseline is not None:
        return False
    return "shard" not in read_report(args.reports[0]) and args.pass_percent is None


def _render(source: Path, html: Path) -> int:
    from toolproof.core.writing import write_atomic
    from toolproof.report.html import render_saved

    page = render_saved(json.loads(source.read_text(encoding="utf-8")), str(source))
    try:
        write_atomic(html, page)
    except OSError as error:
        return _fail(f"{html}: {error.strerror or error}")
    return 0


def _fail(message: str, command: str = "toolproof report") -> int:
    print(f"{command}: {message}", file=sys.stderr)
    return ExitCode.USAGE
