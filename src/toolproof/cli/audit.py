"""`toolproof audit`: call every tool once with valid arguments and classify how it answered."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from toolproof.cli.options import add_jobs_option, output_dir_arg
from toolproof.cli.probing import COMMON_DIFFERENCES, add_server_options
from toolproof.exit_codes import UsageError

if TYPE_CHECKING:
    from toolproof.api.audit import AuditResult

_NAME = "audit"
DEFAULT_JOBS = 4

DIFFERENCES = (
    "Differences from mcp-assert 0.12.3: "
    "exit status 1 when any tool crashed, timed out or rejected valid input "
    "(mcp-assert's audit always exits 0); arguments are generated from the whole schema (enum, examples, "
    "default, format, bounds, nested objects) rather than placeholders; -32602 for arguments that match the "
    "schema is its own class, rejects-valid-input (mcp-assert: a crash). "
)


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        _NAME,
        help="call every tool once with valid arguments: healthy, crash, timeout, skipped",
        description="Call each tool once with arguments generated from its input schema and classify the "
        "answer: healthy (any result that is not an internal error), crash (the process exited, the "
        "connection broke, a JSON-RPC error, or isError with a traceback, panic or stack trace), timeout, "
        "rejects-valid-input (-32602 for schema-valid arguments), skipped (annotated destructive). Score = "
        "healthy / tested. Exit status: 0 all healthy, 1 any finding, 2 usage error or the server cannot "
        "be reached.",
        epilog=DIFFERENCES + COMMON_DIFFERENCES,
    )
    add_server_options(parser, several=True)
    parser.add_argument(
        "--include-writes", action="store_true", help="also call tools annotated destructive or not read-only"
    )
    add_jobs_option(
        parser,
        DEFAULT_JOBS,
        f"calls in flight at once on the server (default {DEFAULT_JOBS}); a call that may have crashed or "
        "hung it is made again alone, so every verdict is the one-at-a-time verdict",
    )
    parser.add_argument(
        "--output",
        type=output_dir_arg,
        metavar="DIR",
        help="write a passing toolproof case per healthy tool into DIR",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from toolproof import api
    from toolproof.cli.options import reports
    from toolproof.cli.probing import connect_specs, probe_status, usage

    try:
        result = api.audit(
            connect_specs(args),
            include_writes=args.include_writes,
            jobs=args.jobs,
            output=args.output,
            reports=reports(args),
        )
    except UsageError as error:
        return usage(_NAME, str(error))
    if result.unreached is None or result.results:
        _summary(args, result)
        if args.output is not None:
            from toolproof.core.gofmt import counted

            print(f"audit: wrote {counted(len(result.written), 'case')} to {args.output}", file=sys.stderr)
    return probe_status(_NAME, result)


def _summary(args: argparse.Namespace, result: AuditResult) -> None:
    from collections import Counter

    from toolproof.cli.probing import say, terminal_stream

    healthy, tested = result.score
    percent = f"{healthy * 100 // tested}%" if tested else "n/a"
    counts = Counter(audit.verdict.value for audit in result.audits)
    classes = ", ".join(f"{count} {name}" for name, count in sorted(counts.items()))
    say(f"audit score: {percent} ({healthy}/{tested} tested tools healthy; {classes})", terminal_stream(args))
