"""`toolproof fuzz`: send every tool hostile inputs; classify each answer; minimise each crash."""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.cli.options import jobs_arg, output_dir_arg
from toolproof.cli.probing import COMMON_DIFFERENCES, add_server_options
from toolproof.exit_codes import UsageError

if TYPE_CHECKING:
    from toolproof.mcp.spec import ConnectSpec
    from toolproof.probe.fuzz import Probe

_NAME = "fuzz"

DIFFERENCES = (
    "Differences from mcp-assert 0.12.3: "
    "the same --seed gives the same inputs, in the same order, with the same "
    "verdicts, and a run without --seed prints the seed it used; -32602 and isError answers that explain "
    "the bad input are 'rejected' (correct behaviour, not a finding); NaN and infinities are skipped, never "
    "blamed on the server; schema boundaries (min/max +- 1, lengths, enum near misses, bad formats) and "
    "unicode edge cases are added; every crash is minimised; tools annotated destructive are skipped "
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
        "error or the server cannot be reached.",
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
    parser.add_argument(
        "-j",
        "--jobs",
        type=jobs_arg,
        default=1,
        metavar="N",
        help="tools fuzzed at once, each on its own server",
    )
    parser.add_argument(
        "--include-writes", action="store_true", help="also fuzz tools annotated destructive or not read-only"
    )
    parser.add_argument(
        "--output", type=output_dir_arg, metavar="DIR", help="write each finding as a toolproof case into DIR"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from toolproof.cli.probing import cannot_connect, connect_spec, run_async, usage
    from toolproof.mcp.errors import RequestFailed
    from toolproof.run.interrupt import Interrupted

    try:
        spec = connect_spec(args)
    except UsageError as error:
        return usage(_NAME, str(error))
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    started = time.perf_counter()
    gathered: list[tuple[str, list[Probe], str]] = []  # filled as answers come: a stop keeps them
    try:
        outcome = run_async(lambda: _fuzz(spec, args, seed, gathered))
    except RequestFailed as error:
        return cannot_connect(_NAME, error.failure.message, error.stderr)
    if isinstance(outcome, str):
        return usage(_NAME, outcome)
    status = _report(args, spec, seed, gathered, time.perf_counter() - started)
    return outcome.report(f"toolproof {_NAME}") if isinstance(outcome, Interrupted) else status


async def _fuzz(
    spec: ConnectSpec, args: argparse.Namespace, seed: int, gathered: list[tuple[str, list[Probe], str]]
) -> str | None:
    """Fuzz the chosen tools into `gathered`, each as (name, its probes, why it was skipped); or a usage
    error."""
    from toolproof.probe.connection import Prober
    from toolproof.probe.fuzz import FuzzPlan, fuzz_tools
    from toolproof.probe.tools import is_destructive, skip_reason, tool_name

    async with Prober(spec) as prober:
        tools = await prober.list_tools()
    names = [tool_name(tool) for tool in tools]
    unknown = [name for name in args.tool if name not in names]
    if unknown:
        return f"--tool: no tool named {', '.join(map(repr, unknown))} (the server lists {', '.join(names)})"
    chosen = [tool for tool in tools if not args.tool or tool_name(tool) in args.tool]
    skipped = [tool for tool in chosen if is_destructive(tool) and not args.include_writes]
    probed = [tool for tool in chosen if tool not in skipped]
    plan = FuzzPlan(seed=seed, runs=args.runs, jobs=args.jobs)
    outcomes: list[list[Probe]] = [[] for _ in probed]
    by_name = {tool_name(tool): probes for tool, probes in zip(probed, outcomes, strict=True)}
    reasons = {tool_name(tool): skip_reason(tool) for tool in skipped}
    gathered += [(name, by_name.get(name, []), reasons.get(name, "")) for name in map(tool_name, chosen)]
    progress = _Progress([tool_name(tool) for tool in probed])
    try:
        await fuzz_tools(spec, probed, plan, progress.done, outcomes)
    finally:
        progress.clear()
    return None


class _Progress:
    """`[done/total] tool` on stderr while tools are fuzzed, when stderr is a terminal (as `run` shows)."""

    def __init__(self, names: list[str]) -> None:
        from toolproof.core.sanitize import clean
        from toolproof.report.progress import StatusLine

        tty = sys.stderr.isatty() and os.environ.get("TERM") != "dumb"
        self._line = StatusLine(sys.stderr) if tty else None
        self._names = [clean(name) for name in names]
        self._done = 0
        if self._line is not None and names:
            self._line.show(f"[0/{len(names)}] fuzzing {self._names[0]}")

    def done(self, index: int, probes: list[Probe]) -> None:
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
    gathered: list[tuple[str, list[Probe], str]],
    duration_s: float,
) -> int:
    from collections import Counter

    from toolproof.cli.probing import Reporter, say, secrets, source_path, terminal_stream
    from toolproof.model.result import CaseResult, Status
    from toolproof.probe.fuzz import tool_results

    source = source_path(spec)
    results: list[CaseResult] = []
    for name, probes, skipped in gathered:
        if probes:
            results.extend(tool_results(name, probes, source))
        else:
            reason = skipped or "not fuzzed: the run was stopped first"
            results.append(CaseResult(name=name, file=source, status=Status.SKIP, reason=reason))
    reporter = Reporter(args, f"toolproof fuzz {source}", secrets(spec))
    reporter.start(len(results))
    reporter.all(results)
    status = reporter.end(duration_s)
    counts = Counter(probe.verdict.value for _, probes, _ in gathered for probe in probes)
    classes = ", ".join(f"{count} {name}" for name, count in sorted(counts.items())) or "no inputs sent"
    out = terminal_stream(args)
    say(f"fuzz: seed {seed}; {sum(counts.values())} inputs: {classes}", out)
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


def _write_cases(directory: Path, gathered: list[tuple[str, list[Probe], str]], spec: ConnectSpec) -> None:
    from toolproof.core.gofmt import counted
    from toolproof.probe.cases import write_cases
    from toolproof.probe.fuzz import finding_case, findings

    cases = {
        f"{finding.first.tool}_{finding.first.input.category}": finding_case(finding, spec)
        for _, probes, _ in gathered
        for finding in findings(probes)
    }
    written = write_cases(directory, cases)
    print(f"fuzz: wrote {counted(len(written), 'case')} to {directory}", file=sys.stderr)
