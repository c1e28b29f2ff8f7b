"""`toolproof check`: judge recorded agent runs (traces) against agent cases, without running anything.

Each case is checked against the runs recorded for it: runs that name its scenario (id or name); else runs
whose first user message is the case's; else every run that names no scenario and matched no case by its
message (Mibo's passive testing: active cases check every incoming trace). Expressions such as TODAY use the
run's recorded start time unless --now is given.

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
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from toolproof.cli.options import add_output_options

if TYPE_CHECKING:
    from toolproof.load.errors import LoadError
    from toolproof.model.result import CaseResult
    from toolproof.model.scenario import AgentCase
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
    from toolproof.load.agent_cases import CASE_SUFFIXES, files_under, load_agent_cases
    from toolproof.report.sinks import warn
    from toolproof.sources.traces import TraceError, UnknownFormat

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
    judged = [case.name for case in cases if _has_judge(case)]
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
    results = _results(cases, errors, pairs, zone, now, by_case=args.by_case)
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


def pair(cases: Sequence[AgentCase], runs: Sequence[Transcript]) -> dict[int, list[Transcript]]:
    """The runs each case (by index) is checked against; see the module docstring."""
    found: dict[int, list[Transcript]] = {index: [] for index in range(len(cases))}
    loose: list[Transcript] = []
    for each in runs:
        if each.scenario is not None:
            for index, case in enumerate(cases):
                if each.scenario in (case.id, case.name):
                    found[index].append(each)
            continue
        by_input = [
            index
            for index, case in enumerate(cases)
            if each.user_input and case.turns and case.turns[0].user.strip() == each.user_input.strip()
        ]
        for index in by_input:
            found[index].append(each)
        if not by_input:
            loose.append(each)
    for index in found:
        if not found[index]:
            found[index] = list(loose)
    return found


def _has_judge(case: AgentCase) -> bool:
    return any(assertion.kind == "judge" for _, assertion in case.all_assertions())


@dataclass
class _Clocks:
    zone: tzinfo
    fixed: datetime | None
    started: float = field(default_factory=time.time)

    def for_run(self, each: Transcript) -> datetime:
        if self.fixed is not None:
            return self.fixed
        if each.started_ms is not None:
            try:
                return datetime.fromtimestamp(each.started_ms / 1000, self.zone)
            except (ValueError, OverflowError, OSError):
                pass  # a start time no clock can show: use the time of the check
        return datetime.fromtimestamp(self.started, self.zone)


def _results(
    cases: Sequence[AgentCase],
    errors: Sequence[LoadError],
    pairs: dict[int, list[Transcript]],
    zone: tzinfo,
    now: datetime | None,
    *,
    by_case: bool,
) -> list[CaseResult]:
    from toolproof.check.expressions import Clock
    from toolproof.check.scenario import evaluate
    from toolproof.model.result import CaseResult, Status
    from toolproof.report.sinks import warn
    from toolproof.run.load_errors import load_error_results

    results = load_error_results(errors)
    clocks = _Clocks(zone, now)
    for index, case in enumerate(cases):
        runs = pairs[index]
        if case.skip or not runs:
            reason = "skip: true in the case" if case.skip else "no recorded run for this case"
            results.append(
                CaseResult(
                    name=case.name,
                    file=case.source.file,
                    line=case.source.line,
                    status=Status.SKIP,
                    reason=reason,
                )
            )
            continue
        for label, each in zip(_run_labels(runs), runs, strict=True):
            named = case if label is None else case.model_copy(update={"name": f"{case.name} [{label}]"})
            evaluation = evaluate(named, each, clock=Clock(clocks.for_run(each), zone))
            for warning in evaluation.warnings:
                warn(f"{case.source.file}: {case.name}: {warning}")
            if by_case:
                results.append(evaluation.case_result())
            else:
                results.extend(evaluation.assertion_results())
    return results


def _run_labels(runs: Sequence[Transcript]) -> list[str | None]:
    """What tells a case's runs apart in its results' names: nothing for a single run; else each run's own
    name or source (`run N` without either), numbered `#N` where those are not unique."""
    if len(runs) == 1:
        return [None]
    labels = [each.run or each.source or f"run {number}" for number, each in enumerate(runs, start=1)]
    if len(set(labels)) < len(labels):
        labels = [f"{label} #{number}" for number, label in enumerate(labels, start=1)]
    return [*labels]


def _report(results: list[CaseResult], args: argparse.Namespace) -> int:
    from toolproof.cli.reporting import build_sinks, exit_status
    from toolproof.model.events import CaseFinished, CaseStarted, RunFinished, RunStarted

    started = time.monotonic()
    sink = build_sinks(args, ())
    sink.handle(RunStarted(total=len(results), title="toolproof check"))
    for index, result in enumerate(results):
        sink.handle(CaseStarted(name=result.name, index=index, total=len(results)))
        sink.handle(CaseFinished(result=result, index=index, total=len(results)))
    sink.handle(RunFinished(results=results, duration_s=time.monotonic() - started))
    return exit_status(results)
