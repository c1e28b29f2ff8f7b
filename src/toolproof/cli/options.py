"""Argument types and options shared by the commands."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolproof.api import Reports


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
    """A duration of zero or more, as an argparse type; 0 means no limit."""
    seconds = _seconds(text)
    if seconds < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {text!r}")
    return seconds


def jobs_arg(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def add_reuse_option(parser: argparse.ArgumentParser) -> None:
    """`--reuse-server`, for every command that runs server suites."""
    parser.add_argument(
        "--reuse-server",
        action="store_true",
        help="cases that only read (no file or net_delta checks; tools the server declares readOnlyHint) "
        "share one server per server identity; every other case gets a fresh one",
    )


def add_output_options(parser: argparse.ArgumentParser, *, json_to_stdout: bool = True) -> None:
    """Report options common to every command that produces verdicts (`json_to_stdout`: `--json -` is
    offered)."""
    json_help = "write a JSON report ('-' for stdout)" if json_to_stdout else "write a JSON report to FILE"
    parser.add_argument("--json", type=str, metavar="FILE", help=json_help)
    parser.add_argument("--junit", type=Path, metavar="FILE", help="write a JUnit XML report")
    verbosity = parser.add_mutually_exclusive_group()
    verbosity.add_argument("-q", "--quiet", action="store_true", help="print only failures and the summary")
    verbosity.add_argument("-v", "--verbose", action="store_true", help="also print phase timings")


def reports(args: argparse.Namespace, *, terminal_to_stderr: bool = False) -> Reports:
    """The reports the output options ask for: the terminal report on stdout (on stderr when `--json -`
    takes stdout, or with `terminal_to_stderr`), and the --json / --junit files."""
    from toolproof.api import Reports

    to_stderr = terminal_to_stderr or args.json == "-"
    return Reports(
        terminal=sys.stderr if to_stderr else sys.stdout,
        json=args.json,
        junit=args.junit,
        verbosity="quiet" if args.quiet else "verbose" if args.verbose else "normal",
    )
