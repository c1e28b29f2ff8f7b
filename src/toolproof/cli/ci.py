"""`toolproof ci`: `run` with a pass-rate threshold and regressions against a baseline as the verdict."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from toolproof.cli.report import add_gate_options
    from toolproof.cli.run import add_run_options

    parser = commands.add_parser(
        "ci",
        help="run server test suites in CI: a pass-rate threshold and baseline regressions decide",
        description="Run every case of the given suites as `run` does, then decide by the pass rate of the "
        "non-skipped cases, rounded down (4 of 5 passes meet --threshold 80, not 81). The Markdown report "
        "is also appended to $GITHUB_STEP_SUMMARY when that is set. Exit status: 0 the threshold is met "
        "(and, with --fail-on-regression, nothing regressed), 1 it is not or a case regressed, 2 usage or "
        "load error, 5 no case ran, 128 + the signal number when stopped by a signal.",
    )
    add_run_options(parser)
    add_gate_options(parser, default_threshold=100)
    parser.add_argument(
        "--merge",
        type=Path,
        metavar="DIR",
        help="run nothing: merge the shard JSON reports under DIR (--shard K/N runs) and decide on the whole",
    )
    parser.set_defaults(handler=ci)


def ci(args: argparse.Namespace) -> int:
    from toolproof.cli.run import run

    if args.fail_on_regression and args.baseline is None:
        print("toolproof ci: --fail-on-regression needs --baseline FILE", file=sys.stderr)
        return 2
    if args.merge is not None:
        return _merge(args)
    return run(args)


def _merge(args: argparse.Namespace) -> int:
    """`ci --merge DIR`: the JSON reports under DIR (every `*.json`, in subdirectories too) as one run."""
    from toolproof.cli.report import merge

    if args.paths or args.suite or args.shard:
        print("toolproof ci: --merge DIR runs nothing; give no suite path and no --shard", file=sys.stderr)
        return 2
    if not args.merge.is_dir():
        print(f"toolproof ci: --merge {args.merge}: not a directory", file=sys.stderr)
        return 2
    found = sorted(path for path in args.merge.rglob("*.json") if path.is_file())
    if not found:
        print(f"toolproof ci: --merge {args.merge}: no JSON report in it", file=sys.stderr)
        return 2
    args.reports = found
    return merge(args, "toolproof ci")
