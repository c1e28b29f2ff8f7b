"""`toolproof check`: judge recorded agent runs (traces) against agent cases, without running anything.

Which runs each case is checked against, and how, is `run.trace_suite`'s; reading the traces and the cases
is `toolproof.api.check_traces`'s: this module reads the arguments.

`--trace` takes every path up to the next option, so the cases stand before it (`check CASES --trace T1 T2`)
or after `--` (`check --trace T1 T2 -- CASES`); when no case path stands elsewhere, the last path after
`--trace` is the cases (`check --trace DIR CASES`). In a directory given to `--trace`, files of no trace
format (an MCPLab run's `results.json`) are skipped with a note; a file named itself must be a trace.
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Sequence
from pathlib import Path

from toolproof.cli.options import add_output_options, reports, settle_json
from toolproof.cli.outcome import exit_status
from toolproof.exit_codes import ExitCode, UsageError


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "check",
        help="check recorded agent runs (traces) against agent cases",
        description="Check the agent runs recorded in trace files against agent cases (MCPLab, Mibo, "
        "PromptKit or toolproof scenario files). Exit status: 0 all passed, 1 any failed, 2 usage or load "
        "error, 5 nothing checked (no case, or no recorded run for any case).",
    )
    parser.add_argument(
        "cases",
        nargs="*",
        type=Path,
        metavar="CASES",
        help="case files or directories (before --trace, or after --; else the last path after --trace)",
    )
    parser.add_argument(
        "--trace",
        action="extend",
        nargs="+",
        type=Path,
        required=True,
        metavar="PATH",
        help="recorded runs: MCPLab trace.jsonl, Mibo trace bodies, OTLP/JSON, mcp-assert audit logs, or "
        "directories of them (other files in a directory are skipped with a note); takes several paths",
    )
    parser.add_argument(
        "--platform",
        choices=("custom", "n8n", "flowise"),
        help="read legacy Mibo {data, metadata} bodies with this platform's parser (default: recognised)",
    )
    parser.add_argument("--response-path", metavar="PATH", help="dot path of the reply in Custom API bodies")
    parser.add_argument("--timezone", metavar="ZONE", help="time zone of date expressions (default: local)")
    parser.add_argument(
        "--now",
        metavar="ISO",
        help="the time expressions such as TODAY see (default: the run's recorded start, else now)",
    )
    parser.add_argument(
        "--skip-judge",
        action="store_true",
        help="report judge checks as not evaluated instead of refusing to run without a judge",
    )
    parser.add_argument("--by-case", action="store_true", help="one result per case and run, not per check")
    parser.add_argument("-k", dest="select", metavar="PATTERN", help="only cases whose name or file matches")
    add_output_options(parser, run_control=True)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """The check, with the cyclic garbage collector off: nearly all it allocates are the modules and models it
    imports and the runs it reads, which live to the end, and the collector's passes over them were 3% of a
    one-case check's instructions (the runs are all read before any is checked, so memory stays bounded by
    the input)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _check(args)
    finally:
        if collecting:
            gc.enable()


def _check(args: argparse.Namespace) -> int:
    from toolproof import api
    from toolproof.core.writing import warn

    settle_json(args, "cases")
    try:
        trace_paths, case_paths = split_paths(args.trace, args.cases)
        if not args.cases:
            warn(
                f"check: took {case_paths[0]} as the cases (the last path after --trace); put the cases "
                "before --trace or after -- to say so"
            )
        result = api.check_traces(
            case_paths,
            trace_paths,
            skip_judge=args.skip_judge,
            by_case=args.by_case,
            timezone=args.timezone,
            now=args.now,
            platform=args.platform,
            response_path=args.response_path,
            reports=reports(args),
            select=args.select,
            last_failed=args.last_failed,
            failed_first=args.failed_first,
            maxfail=args.maxfail or 0,
            shard=args.shard,
        )
    except UsageError as problem:
        print(f"toolproof check: {problem}", file=sys.stderr)
        return ExitCode.USAGE
    return exit_status("toolproof check", result)


def split_paths(traces: Sequence[Path], cases: Sequence[Path]) -> tuple[list[Path], list[Path]]:
    """The trace paths and the case paths: with no case path given apart, the last path after `--trace` is
    the cases. Raises UsageError when no case path is left."""
    if cases:
        return list(traces), list(cases)
    if len(traces) < 2:
        raise UsageError(
            "no cases given: put the case files before --trace or after -- (--trace takes every path up to "
            "the next option)"
        )
    return list(traces[:-1]), list(traces[-1:])
