"""`toolproof fuzz`: send every tool hostile inputs; classify each answer; minimise each crash."""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.cli.options import add_jobs_option, duration_arg, jobs_arg, output_dir_arg
from toolproof.cli.probing import COMMON_DIFFERENCES, add_server_options
from toolproof.exit_codes import UsageError

if TYPE_CHECKING:
    from toolproof.cli.probing import Reporter
    from toolproof.mcp.spec import ConnectSpec
    from toolproof.model.result import CaseResult
    from toolproof.probe.fuzz import FuzzCall

Gathered = list[tuple[str, "list[FuzzCall] | None"]]
"""Each chosen tool's name and its probes: empty when skipped as destructive, None when not reached."""

_NAME = "fuzz"

DIFFERENCES = (
    "Differences from mcp-assert 0.12.3: "
    "the same --seed gives the same inputs, in the same order, with the same "
    "verdicts, and a run without --seed prints the seed it used; -32602 and isError answers that explain "
    "the bad input are 'rejected' (correct behaviour, not a finding); NaN and infinities are skipped, never "
    "blamed on the server; schema boundaries (min/max +- 1, lengths, enum near misses, bad formats) and "
    "unicode edge cases are added; each distinct crash of a tool is minimised once (mcp-assert: none); "
    "results are printed as each tool finishes; --max-time bounds the run; the JSON report records the "
    "seed, runs and timeout, and each input sent with its answer; tools annotated destructive are skipped "
    "unless --include-writes. "
)


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        _NAME,
        help="send every tool hostile inputs: passed, rejected, crash, timeout, protocol error",
        description="Send each tool up to --runs inputs built from its schema (missing and wrong-typed "
        "fields, boundaries, injection strings, unicode edge cases, random mutations) and classify each "
        "answer: passed, rejected (a validation error: correct), crash, timeout, protocol-error (a reply "
        "that is not MCP), skipped (JSON cannot carry the input). Crashes are minimised to a smallest input "
        "that still crashes. Exit status: 0 no finding, 1 any crash, timeout or protocol error, 2 usage "
        "error or the server cannot be reached. Results are printed as each tool finishes.",
        epilog=DIFFERENCES + COMMON_DIFFERENCES,
    )
    add_server_options(parser)
    parser.add_argument("--runs", type=jobs_arg, default=50, metavar="N", help="inputs per tool (default 50)")
    parser.add_argument(
        "--seed", type=int, metavar="N", help="seed of the random inputs (default: a new one, printed)"
    )
    parser.add_argument(
        "--tool", action="append", default=[], metavar="NAME", help="fuzz only this tool (repeatable)"
    )
    add_jobs_option(
        parser,
        1,
        "calls in flight at once: tools fuzzed at once, each on its own server, and a server left more than "
        "one sends that many of its tool's inputs at once (a crash or hang is still blamed on its own input)",
    )
    parser.add_argument(
        "--max-time",
        type=duration_arg,
        metavar="DURATION",
        help="stop sending inputs after DURATION (e.g. 2m): the results so far are reported and the tools "
        "not reached are named",
    )
    parser.add_argument(
        "--include-writes", action="store_true", help="also fuzz tools annotated destructive or not read-only"
    )
    parser.add_argument(
        "--output", type=output_dir_arg, metavar="DIR", help="write each finding as a toolproof case into DIR"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from toolproof.cli.probing import (
        Reporter,
        cannot_connect,
        connect_spec,
        run_async,
        source_path,
        usage,
    )
    from toolproof.cli.probing import secrets as secret_values
    from toolproof.mcp.errors import RequestFailed
    from toolproof.run.interrupt import Interrupted

    try:
        spec = connect_spec(args)
    except UsageError as error:
        return usage(_NAME, str(error))
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    reporter = Reporter(args, f"toolproof fuzz {source_path(spec)}", secret_values(spec))
    started = time.perf_counter()
    gathered: Gathered = []  # filled as answers come: a stop by signal keeps what was found
    try:
        outcome = run_async(lambda: _fuzz(spec, args, seed, reporter, gathered))
    except RequestFailed as error:
        return cannot_connect(_NAME, error.failure.message, error.stderr)
    if isinstance(outcome, str):
        return usage(_NAME, outcome)
    status = _report(args, spec, seed, gathered, reporter, time.perf_counter() - started)
    return outcome.report(f"toolproof {_NAME}") if isinstance(outcome, Interrupted) else status


async def _fuzz(
    spec: ConnectSpec, args: argparse.Namespace, seed: int, reporter: Reporter, gathered: Gathered
) -> str | None:
    """Fuzz the chosen tools into `gathered`, handing each tool's results to the reports as it finishes (in
    tool order); when a stop signal cancels it, the inputs answered so far; or a usage error."""
    from toolproof.cli.probing import source_path
    from toolproof.probe.connection import Prober
    from toolproof.probe.fuzz import FuzzPlan, fuzz_tools, tool_results
    from toolproof.probe.tools import is_destructive, skip_reason, tool_name

    async with Prober(spec) as prober:
        tools = await prober.list_tools()
    names = [tool_name(tool) for tool in tools]
    unknown = [name for name in args.tool if name not in names]
    if unknown:
        return f"--tool: no tool named {', '.join(map(repr, unknown))} (the server lists {', '.join(names)})"
    chosen = [tool for tool in tools if not args.tool or tool_name(tool) in args.tool]
    probed = [index for index, tool in enumerate(chosen) if args.include_writes or not is_destructive(tool)]
    fuzzed = set(probed)
    gathered += [(tool_name(tool), None if index in fuzzed else []) for index, tool in enumerate(chosen)]
    source = source_path(spec)
    reporter.start(len(chosen), _settings(args, seed))
    stream = _Stream(reporter, len(chosen))
    for index, (name, probes) in enumerate(gathered):
        if probes is not None:
            stream.add(index, [_not_fuzzed(name, source, skip_reason(chosen[index]))])
    progress = _Progress([gathered[index][0] for index in probed])

    def done(position: int, probes: list[FuzzCall]) -> None:
        index = probed[position]
        gathered[index] = (gathered[index][0], probes)
        stream.add(index, tool_results(gathered[index][0], probes, source))
        progress.done(position)

    plan = FuzzPlan(seed=seed, runs=args.runs, jobs=args.jobs, max_time_s=args.max_time)
    outcomes: list[list[FuzzCall] | None] = [None for _ in probed]  # filled as answers come
    finished = False
    try:
        await fuzz_tools(spec, [chosen[index] for index in probed], plan, done, progress.started, outcomes)
        finished = True
    finally:  # also when a stop signal cancelled it: the tools cut short report what they found
        progress.clear()
        for position, index in enumerate(probed):
            name, probes = gathered[index]
            partial = outcomes[position]
            if probes is not None:
                continue
            if partial:
                gathered[index] = (name, partial)
                stream.add(index, tool_results(name, partial, source))
            elif finished:  # only when --max-time ran out
                why = f"not reached within --max-time {args.max_time:g}s"
                stream.add(index, [_not_fuzzed(name, source, why)])
            else:
                gathered[index] = (name, [])
                stream.add(index, [_not_fuzzed(name, source, "not fuzzed: the run was stopped first")])
    return None


def _not_fuzzed(name: str, source: Path, why: str) -> CaseResult:
    from toolproof.model.result import CaseResult, Status

    return CaseResult(name=name, file=source, status=Status.SKIP, reason=why)


def _settings(args: argparse.Namespace, seed: int) -> dict[str, object]:
    """What the JSON report records so that its run can be replayed."""
    return {
        "seed": seed,
        "runs": args.runs,
        "timeout_s": args.timeout,
        "max_time_s": args.max_time,
        "replay": _replay(args, seed),
    }


class _Stream:
    """Hands each tool's results to the reports once it and every tool before it are done, so they come
    out in tool order whatever the workers' order, numbered as they come."""

    def __init__(self, reporter: Reporter, tools: int) -> None:
        from toolproof.report.ordering import InOrder

        self._reporter = reporter
        self._order: InOrder[list[CaseResult]] = InOrder()
        self._tools = tools
        self._sent = 0

    def add(self, index: int, results: list[CaseResult]) -> None:
        for ready in self._order.add(index, results):
            for result in ready:
                total = max(self._tools, self._sent + 1)
                self._reporter.started(result.name, self._sent, total)
                self._reporter.finished(result, self._sent, total)
                self._sent += 1


class _Progress:
    """`[done/total] fuzzing tool` on stderr while tools are fuzzed, when stderr is a terminal."""

    def __init__(self, names: list[str]) -> None:
        from toolproof.core.sanitize import clean
        from toolproof.report.progress import StatusLine

        tty = sys.stderr.isatty() and os.environ.get("TERM") != "dumb"
        self._line = StatusLine(sys.stderr) if tty else None
        self._names = [clean(name) for name in names]
        self._done = 0

    def started(self, index: int) -> None:
        if self._line is not None:
            self._line.show(f"[{self._done}/{len(self._names)}] fuzzing {self._names[index]}")

    def done(self, index: int) -> None:
        self._done += 1
        if self._line is not None:
            self._line.show(f"[{self._done}/{len(self._names)}] {self._names[index]} done")

    def clear(self) -> None:
        if self._line is not None:
            self._line.clear()


def _report(
    args: argparse.Namespace,
    spec: ConnectSpec,
    seed: int,
    gathered: Gathered,
    reporter: Reporter,
    duration_s: float,
) -> int:
    from collections import Counter

    from toolproof.cli.probing import say, terminal_stream
    from toolproof.core.sanitize import clean

    status = reporter.end(duration_s)
    counts = Counter(probe.verdict.value for _, probes in gathered for probe in probes or [])
    classes = ", ".join(f"{count} {name}" for name, count in sorted(counts.items())) or "no inputs sent"
    out = terminal_stream(args)
    say(f"fuzz: seed {seed}; {sum(counts.values())} inputs: {classes}", out)
    missed = [clean(name) for name, probes in gathered if probes is None]
    if missed:
        say(f"fuzz: --max-time {args.max_time:g}s ran out; not reached: {', '.join(missed)}", out)
    say(f"replay: {_replay(args, seed)}", out)
    if args.output is not None:
        _write_cases(args.output, gathered, spec)
    return status


def _replay(args: argparse.Namespace, seed: int) -> str:
    import shlex

    words = ["toolproof", "fuzz", "--server", args.server, "--seed", str(seed), "--runs", str(args.runs)]
    for name in args.tool:
        words += ["--tool", name]
    if args.transport:
        words += ["--transport", args.transport]
    if args.include_writes:
        words.append("--include-writes")
    words += ["--timeout", f"{args.timeout:g}s"]
    return shlex.join(words)


def _write_cases(directory: Path, gathered: Gathered, spec: ConnectSpec) -> None:
    from toolproof.core.gofmt import counted
    from toolproof.probe.cases import write_cases
    from toolproof.probe.fuzz import finding_case, findings

    cases = {
        f"{finding.first.tool}_{finding.first.input.category}": finding_case(finding, spec)
        for _, probes in gathered
        for finding in findings(probes or [])
    }
    written = write_cases(directory, cases)
    print(f"fuzz: wrote {counted(len(written), 'case')} to {directory}", file=sys.stderr)
