"""`toolproof check`: judge recorded agent runs (traces) against agent cases, without running anything.

Which runs each case is checked against, and how, is `run.trace_suite`'s: this module reads the arguments,
the traces and the cases, and reports.

`--trace` takes every path up to the next option, so the cases stand before it (`check CASES --trace T1 T2`)
or after `--` (`check --trace T1 T2 -- CASES`); when no case path stands elsewhere, the last path after
`--trace` is the cases (`check --trace DIR CASES`). In a directory given to `--trace`, files of no trace
format (an MCPLab run's `results.json`) are skipped with a note; a file named itself must be a trace.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from datetime import datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from toolproof.cli.options import add_output_options, settle_json

if TYPE_CHECKING:
    from toolproof.model.result import CaseResult
    from toolproof.model.transcript import Transcript

TRACE_SUFFIXES = frozenset({".json", ".jsonl", ".ndjson"})


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "check",
        help="check recorded agent runs (traces) against agent cases",
        description="Check the agent runs recorded in trace files against agent cases (MCPLab, Mibo, "
        "PromptKit or toolproof scenario files). Exit status: 0 all passed, 1 any failed, 2 usage or load "
        "error.",
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
    add_output_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from toolproof.core.writing import warn
    from toolproof.load.agent_cases import CASE_SUFFIXES, load_agent_cases
    from toolproof.load.walk import files_under
    from toolproof.run.trace_suite import check_runs, has_judge, pair
    from toolproof.sources.traces import TraceError, UnknownFormat

    settle_json(args, "cases")
    try:
        zone = _zone(args.timezone)
        now = _moment(args.now, zone) if args.now else None
        trace_paths, case_paths = split_paths(args.trace, args.cases)
    except ValueError as error:
        return _usage(str(error))
    try:
        traces = [  # (file, whether it was named itself rather than found in a directory)
            (path, path == given) for given in trace_paths for path in files_under(given, TRACE_SUFFIXES)
        ]
        recorded = {path.resolve() for path, _ in traces}
        case_files = [
            path
            for given in case_paths
            for path in files_under(given, CASE_SUFFIXES)
            if path.resolve() not in recorded
        ]
    except FileNotFoundError as error:
        return _usage(f"{error.args[0]}: no such file or directory")
    runs: list[Transcript] = []
    for path, named in traces:
        try:
            runs.extend(_read(path, args))
        except UnknownFormat as error:
            if named:
                return _usage(f"{path}: {error}")
            warn(f"{path}: skipped, {error}")
        except TraceError as error:
            return _usage(f"{path}: {error}")
    cases, errors = load_agent_cases(case_files)
    judged = [case.name for case in cases if has_judge(case)]
    if judged and not args.skip_judge:
        shown = ", ".join(judged[:5]) + (f" and {len(judged) - 5} more" if len(judged) > 5 else "")
        return _usage(
            f"judge checks need a judge, and none is configured ({shown}); pass --skip-judge to "
            "report them as not evaluated"
        )
    pairs = pair(cases, runs)
    if cases and runs and not any(pairs.values()):
        return _usage(
            "no recorded run matches any case (runs name scenarios "
            f"{sorted({r.scenario for r in runs if r.scenario}) or 'none'})"
        )
    results = check_runs(cases, errors, pairs, zone, now, by_case=args.by_case)
    return _report(results, args)


def split_paths(traces: Sequence[Path], cases: Sequence[Path]) -> tuple[list[Path], list[Path]]:
    """The trace paths and the case paths: with no case path given apart, the last path after `--trace` is
    the cases. Raises ValueError when no case path is left."""
    if cases:
        return list(traces), list(cases)
    if len(traces) < 2:
        raise ValueError(
            "no cases given: put the case files before --trace or after -- (--trace takes every path up to "
            "the next option)"
        )
    return list(traces[:-1]), list(traces[-1:])


def _usage(message: str) -> int:
    print(f"toolproof check: {message}", file=sys.stderr)
    return 2


def _zone(name: str | None) -> tzinfo:
    if name is None:
        local = datetime.now().astimezone().tzinfo
        assert local is not None
        return local
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"--timezone {name}: not a time zone name") from None


def _moment(text: str, zone: tzinfo) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"--now {text}: not an ISO 8601 date-time") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=zone)


def _read(path: Path, args: argparse.Namespace) -> list[Transcript]:
    from toolproof.sources.traces import read_traces

    return read_traces(path, platform=args.platform, response_path=args.response_path)


def _report(results: list[CaseResult], args: argparse.Namespace) -> int:
    from toolproof.cli.reporting import build_sinks, prioritised, stopped_early, verdict
    from toolproof.model.events import CaseFinished, CaseStarted, RunFinished, RunStarted

    started = time.monotonic()
    results = stopped_early(prioritised(results, lambda result: result.node_id, args), args.maxfail)
    sink = build_sinks(args, ())
    sink.handle(RunStarted(total=len(results), title="toolproof check"))
    for index, result in enumerate(results):
        sink.handle(CaseStarted(name=result.name, index=index, total=len(results)))
        sink.handle(CaseFinished(result=result, index=index, total=len(results)))
    sink.handle(RunFinished(results=results, duration_s=time.monotonic() - started))
    return verdict(args, results)
