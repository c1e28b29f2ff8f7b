"""Argument types and options shared by the commands."""

from __future__ import annotations

import argparse
from pathlib import Path


def duration_arg(text: str) -> float:
    """A Go-style duration (`30s`, `1m30s`, `500ms`) or plain seconds, as an argparse type."""
    from toolproof.load.durations import parse_duration

    try:
        return parse_duration(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def jobs_arg(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def add_output_options(parser: argparse.ArgumentParser, *, json_to_stdout: bool = True) -> None:
    """Report options common to every command that produces verdicts (`json_to_stdout`: `--json -` is
    offered)."""
    json_help = "write a JSON report ('-' for stdout)" if json_to_stdout else "write a JSON report to FILE"
    parser.add_argument("--json", type=str, metavar="FILE", help=json_help)
    parser.add_argument("--junit", type=Path, metavar="FILE", help="write a JUnit XML report")
    verbosity = parser.add_mutually_exclusive_group()
    verbosity.add_argument("-q", "--quiet", action="store_true", help="print only failures and the summary")
    verbosity.add_argument("-v", "--verbose", action="store_true", help="also print phase timings")
