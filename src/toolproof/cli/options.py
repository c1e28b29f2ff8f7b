"""Argument types and options shared by the commands."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolproof.api import Reports
    from toolproof.report.baseline import Entry

STDOUT = "-"
STEP_SUMMARY = "GITHUB_STEP_SUMMARY"


def _seconds(text: str) -> float:
    """A Go-style duration (`30s`, `1m30s`, `500ms`) or plain seconds; ArgumentTypeError when malformed."""
    from toolproof.core.durations import parse_duration

    try:
        return parse_duration(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def duration_arg(text: str) -> float:
    """A duration greater than zero, as an argparse type (a timeout of 0 would fail everything at once)."""
    seconds = _seconds(text)
    if seconds <= 0:
        raise argparse.ArgumentTypeError(f"must be greater than 0, got {text!r}")
    return seconds


def limit_arg(text: str) -> float:
    """A duration of zero or more, as an argparse type (a limit of 0 is none; a wait of 0 does not wait)."""
    seconds = _seconds(text)
    if seconds < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {text!r}")
    return seconds


def _whole_number(text: str, low: int, high: int | None, expected: str) -> int:
    """`text` as a whole number from `low` to `high` (None: no upper bound), else ArgumentTypeError."""
    try:
        value = int(text)
    except ValueError:
        value = low - 1
    if value < low or (high is not None and value > high):
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
    return value


def jobs_arg(text: str) -> int:
    """A whole number of one or more, as an argparse type."""
    return _whole_number(text, 1, None, "a whole number >= 1")


def add_jobs_option(parser: argparse.ArgumentParser, default: int, help: str) -> None:
    """`-j/--jobs N` (a whole number of one or more) with `default` and `help`."""
    parser.add_argument("-j", "--jobs", type=jobs_arg, default=default, metavar="N", help=help)


def shard_arg(text: str) -> str:
    """`K/N` for --shard, checked here so a bad value is an argparse error."""
    from toolproof.load.selection import SelectionError
    from toolproof.load.shards import Shard

    try:
        return str(Shard.parse(text))
    except SelectionError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix(f"--shard {text!r}: ")) from None


def add_suite_paths(parser: argparse.ArgumentParser) -> None:
    """The suite paths (positional and `--suite`) and `--fixture` of every command that loads a suite."""
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATH", help="suite files or directories")
    parser.add_argument(
        "--suite",
        action="append",
        type=Path,
        default=[],
        metavar="PATH",
        help="a suite file or directory (mcp-assert spelling; may repeat)",
    )
    parser.add_argument(
        "--fixture",
        type=Path,
        metavar="DIR",
        help="fixture directory; each case gets its own copy as {{fixture}}",
    )


def add_resume_option(parser: argparse.ArgumentParser) -> None:
    """`--resume FILE`, for the commands that run cases (`run`, `ci`, `eval`)."""
    parser.add_argument(
        "--resume",
        type=Path,
        metavar="FILE",
        help="finish a stopped run: skip the cases whose results its JSON report FILE holds, and report "
        "them beside the new ones",
    )


def add_headers_option(parser: argparse.ArgumentParser) -> None:
    """`--headers K=V,...` (may repeat), and `--header NAME:VALUE`, an older spelling taken with a hint."""
    parser.add_argument(
        "--headers",
        action="append",
        default=[],
        metavar="K=V,...",
        help="HTTP headers for sse/http, e.g. Authorization=Bearer x (may repeat)",
    )
    parser.add_argument("--header", action="append", default=[], dest="header_lines", help=argparse.SUPPRESS)


def parse_headers(text: str) -> dict[str, str]:
    """`K=V,K2=V2` as `--headers` reads it; raises UsageError."""
    from toolproof.exit_codes import UsageError

    headers: dict[str, str] = {}
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        name, equals, value = item.partition("=")
        if not equals or not name.strip():
            raise UsageError(f"--headers: expected K=V pairs separated by commas, got {item!r}")
        headers[name.strip()] = value.strip()
    return headers


def headers_from(args: argparse.Namespace, command: str) -> dict[str, str]:
    """The headers `--headers` (and `--header`, with a hint on stderr to spell it `--headers`) give;
    raises UsageError."""
    from toolproof.exit_codes import UsageError

    headers: dict[str, str] = {}
    for text in args.headers:
        headers.update(parse_headers(text))
    for line in args.header_lines:
        name, colon, value = line.partition(":")
        if not colon or not name.strip():
            raise UsageError(f"--header {line!r}: expected NAME:VALUE (better: --headers NAME=VALUE)")
        headers[name.strip()] = value.strip()
        print(
            f"toolproof {command}: hint: --header {name.strip()}:... is spelled --headers "
            f"{name.strip()}=... (K=V pairs, comma-separated, as in every command); taken as that",
            file=sys.stderr,
        )
    return headers


def add_cwd_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cwd",
        metavar="DIR",
        help="run a stdio server in DIR (default: a scratch directory, removed afterwards)",
    )


def working_directory(args: argparse.Namespace, name: str) -> str | None:
    """The stdio server's working directory: `--cwd`, or None for a scratch one, which is announced."""
    from toolproof.probe.workdir import NOTE

    if args.cwd:
        return str(Path(args.cwd).absolute())
    print(f"toolproof {name}: {NOTE}", file=sys.stderr)
    return None


def add_reuse_option(parser: argparse.ArgumentParser) -> None:
    """`--reuse-server`, for every command that runs server suites."""
    parser.add_argument(
        "--reuse-server",
        action="store_true",
        help="cases that only read (no file or net_delta checks; tools the server declares readOnlyHint) "
        "share one server per server identity; every other case gets a fresh one",
    )


def add_protocol_option(parser: argparse.ArgumentParser) -> None:
    """`--protocol`, for every command that talks to a server."""
    parser.add_argument(
        "--protocol",
        choices=("2025-11-25", "2026-07-28", "auto"),
        default="2025-11-25",
        help="protocol era: the 2025-11-25 initialize handshake (default), the 2026-07-28 era (never falls "
        "back), or auto (server/discover first; a server that rejects it with -32022 is asked again in a "
        "version it lists as supported, one that does not know it gets the handshake)",
    )


def add_subscription_wait_option(parser: argparse.ArgumentParser) -> None:
    """`--subscription-wait`, for every command that runs server suites."""
    parser.add_argument(
        "--subscription-wait",
        type=limit_arg,
        default=5.0,
        metavar="DURATION",
        help="how long expect_notification: true waits for a resource update after the read, e.g. 30s, "
        "500ms; 0 checks at once; the case's timeout still bounds it (default 5s)",
    )


def output_dir_arg(text: str) -> Path:
    """A directory to write into: an existing one, or one that can be made (no part of it is a file)."""
    path = Path(text)
    for part in (path, *path.parents):
        if part.exists():
            if not part.is_dir():
                raise argparse.ArgumentTypeError(f"{part} is not a directory")
            break
    return path


def count_arg(text: str) -> int:
    """A whole number of zero or more, as an argparse type."""
    return _whole_number(text, 0, None, "a whole number >= 0")


def percent_arg(text: str) -> int:
    """A whole percentage from 0 to 100, as an argparse type."""
    return _whole_number(text, 0, 100, "a whole percentage from 0 to 100")


def baseline_arg(text: str) -> dict[str, Entry]:
    """A baseline file, read at once (a missing or malformed one is a usage error)."""
    from toolproof.report.baseline import BaselineError, load_baseline

    try:
        return load_baseline(text)
    except BaselineError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def add_output_options(
    parser: argparse.ArgumentParser, *, json_to_stdout: bool = True, run_control: bool = False
) -> None:
    """Report options common to every command that produces verdicts (`json_to_stdout`: a bare `--json` or
    `--json -` prints the report on stdout), and with `run_control` the options that choose and stop cases
    (--lf, --ff, -x, --maxfail)."""
    from toolproof.report import formats

    reports = parser.add_argument_group("reports")
    for row in formats.FORMATS:
        if row.stdout and json_to_stdout:
            help = f"{row.help}, or to stdout when FILE is '-' or left out"
            reports.add_argument(row.flag, dest=row.name, nargs="?", const=STDOUT, metavar="FILE", help=help)
        else:
            kind = str if row.stdout else Path  # "-" stays a name where stdout is allowed
            reports.add_argument(row.flag, dest=row.name, type=kind, metavar="FILE", help=row.help)
    reports.add_argument(
        "--baseline",
        type=baseline_arg,
        metavar="FILE",
        help="compare with a saved baseline; a regression fails the run (in ci, with --fail-on-regression)",
    )
    reports.add_argument(
        "--durations", type=count_arg, metavar="N", help="print the N slowest cases (0: all of them)"
    )
    verbosity = reports.add_mutually_exclusive_group()
    verbosity.add_argument("-q", "--quiet", action="store_true", help="print only failures and the summary")
    verbosity.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also print phase timings and what each case sent and got back",
    )
    if not run_control:
        return
    control = parser.add_argument_group("run control")
    control.add_argument(
        "--lf",
        "--last-failed",
        dest="last_failed",
        action="store_true",
        help="only the cases that failed last time (all when none did); kept in .toolproof/",
    )
    control.add_argument(
        "--ff", "--failed-first", dest="failed_first", action="store_true", help="the failed cases first"
    )
    control.add_argument(
        "--shard",
        type=shard_arg,
        metavar="K/N",
        help="only shard K of N: a stable hash of each case's node id splits the suite over N runs "
        "(merge their --json reports with `toolproof report`)",
    )
    stop = control.add_mutually_exclusive_group()
    stop.add_argument(
        "-x", "--exitfirst", dest="maxfail", action="store_const", const=1, help="stop at the first failure"
    )
    stop.add_argument("--maxfail", type=jobs_arg, metavar="N", help="stop after N failures")


def settle_json(args: argparse.Namespace, positional: str) -> None:
    """`--json` left bare before a suite path takes the path as its file: give the path back to the
    `positional` list and print the report on stdout (a directory or a .yaml/.yml file is a suite, never
    a report)."""
    given = getattr(args, "json", None)
    if given in (None, STDOUT) or not (Path(given).is_dir() or Path(given).suffix in (".yaml", ".yml")):
        return
    setattr(args, positional, [*getattr(args, positional), Path(given)])
    args.json = STDOUT


def reports(args: argparse.Namespace, *, terminal_to_stderr: bool = False) -> Reports:
    """The reports the output options ask for: the terminal report on stdout (on stderr when `--json -`
    takes stdout, or with `terminal_to_stderr`), the report files, the Markdown also appended to
    `$GITHUB_STEP_SUMMARY` when that is set, and the last-failed record under `.toolproof/`."""
    import os

    from toolproof.api import Reports
    from toolproof.report.history import STATE_DIR

    to_stderr = terminal_to_stderr or args.json == "-"
    summary = os.environ.get(STEP_SUMMARY)
    return Reports(
        terminal=sys.stderr if to_stderr else sys.stdout,
        files=report_files(args),
        verbosity="quiet" if args.quiet else "verbose" if args.verbose else "normal",
        step_summaries=(summary,) if summary else (),
        baseline=args.baseline,
        durations=args.durations,
        threshold=getattr(args, "pass_percent", None),
        fail_on_regression=getattr(args, "fail_on_regression", False),
        state_dir=STATE_DIR,
        title=f"toolproof {getattr(args, 'command', None) or 'run'}",
    )


def report_files(args: argparse.Namespace) -> dict[str, str | Path]:
    """The destination of each output format whose flag was given, by format name."""
    from toolproof.report import formats

    given = {row.name: getattr(args, row.name, None) for row in formats.FORMATS}
    return {name: destination for name, destination in given.items() if destination is not None}
