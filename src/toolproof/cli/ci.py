"""`toolproof ci`: `run` with a pass-rate threshold and regressions against a baseline as the verdict."""

from __future__ import annotations

import argparse
import sys

from toolproof.cli.options import percent_arg


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from toolproof.cli.run import add_suite_options

    parser = commands.add_parser(
        "ci",
        help="run server test suites in CI: a pass-rate threshold and baseline regressions decide",
        description="Run every case of the given suites as `run` does, then decide by the pass rate of the "
        "non-skipped cases, rounded down (4 of 5 passes meet --threshold 80, not 81). The Markdown report "
        "is also appended to $GITHUB_STEP_SUMMARY when that is set. Exit status: 0 the threshold is met "
        "(and, with --fail-on-regression, nothing regressed), 1 it is not or a case regressed, 2 usage or "
        "load error, 5 no case ran, 128 + the signal number when stopped by a signal.",
    )
    add_suite_options(parser)
    parser.add_argument(
        "--threshold",
        dest="pass_percent",
        type=percent_arg,
        default=100,
        metavar="PERCENT",
        help="minimum pass percentage of the non-skipped cases (default 100)",
    )
    parser.add_argument(
        "--fail-on-regression",
        action="store_true",
        help="exit 1 when a case that passed in --baseline does not pass now (needs --baseline)",
    )
    parser.set_defaults(handler=ci)


def ci(args: argparse.Namespace) -> int:
    from toolproof.cli.run import run

    if args.fail_on_regression and args.baseline is None:
        print("toolproof ci: --fail-on-regression needs --baseline FILE", file=sys.stderr)
        return 2
    return run(args)
