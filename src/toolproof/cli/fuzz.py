"""`toolproof fuzz`: send every tool hostile inputs; classify each answer; minimise each crash."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from toolproof.cli.options import add_jobs_option, duration_arg, jobs_arg, output_dir_arg
from toolproof.cli.probing import COMMON_DIFFERENCES, add_server_options
from toolproof.exit_codes import UsageError

if TYPE_CHECKING:
    from toolproof.api.fuzz import FuzzResult

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
    add_server_options(parser, several=True)
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
    from toolproof import api
    from toolproof.cli.options import reports
    from toolproof.cli.probing import connect_specs, probe_status, usage

    tty = sys.stderr.isatty() and os.environ.get("TERM") != "dumb"
    try:
        result = api.fuzz(
            connect_specs(args),
            runs=args.runs,
            seed=args.seed,
            tools=args.tool,
            jobs=args.jobs,
            max_time=args.max_time,
            include_writes=args.include_writes,
            output=args.output,
            reports=reports(args),
            progress=sys.stderr if tty else None,
        )
    except UsageError as error:
        return usage(_NAME, str(error))
    if result.unreached is None or result.results:
        _summary(args, result)
    return probe_status(_NAME, result)


def _summary(args: argparse.Namespace, result: FuzzResult) -> None:
    from collections import Counter

    from toolproof.cli.probing import say, terminal_stream
    from toolproof.core.gofmt import counted
    from toolproof.core.sanitize import clean

    out = terminal_stream(args)
    for server in result.servers:
        counts = Counter(probe.verdict.value for _, probes in server.probes for probe in probes or [])
        classes = ", ".join(f"{count} {name}" for name, count in sorted(counts.items())) or "no inputs sent"
        named = f"{clean(server.server)}: " if len(result.servers) > 1 else ""
        say(f"fuzz: {named}seed {result.seed}; {sum(counts.values())} inputs: {classes}", out)
        missed = [clean(name) for name, probes in server.probes if probes is None]
        if missed:
            say(f"fuzz: --max-time {args.max_time:g}s ran out; not reached: {', '.join(missed)}", out)
        say(f"replay: {server.replay}", out)
    if args.output is not None:
        print(f"fuzz: wrote {counted(len(result.written), 'case')} to {args.output}", file=sys.stderr)
