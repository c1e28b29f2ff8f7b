"""`toolproof coverage`: which tools, resources and prompts of a server the suite exercises."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from toolproof.cli.author_options import (
    UsageError,
    add_command,
    add_server_options,
    add_suite_options,
    fail,
    suite_paths,
)
from toolproof.cli.options import parse_headers


def _percent(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"expected a whole percentage 0-100, got {text!r}")
    return value


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = add_command(
        commands,
        "coverage",
        help="show which tools, resources and prompts of the server the suite exercises",
        description="List the server's tools, resources and prompts and say which the suite's cases exercise "
        "(skipped cases and setup steps do not count) and which tool arguments no case gives. Without "
        "--server, the servers the cases name are listed. Exit status: 0, 1 when tool coverage is below "
        "--min, 2 on a usage, load or connection error.",
    )
    add_suite_options(parser, jobs=False)
    add_server_options(
        parser, server_help="the server to measure: a command, or a URL with --transport", timeout=15.0
    )
    parser.add_argument("--json", metavar="FILE", help="write the coverage as JSON ('-' for stdout)")
    parser.add_argument(
        "--output",
        "--coverage-json",
        dest="output",
        type=Path,
        metavar="FILE",
        help="write the coverage JSON to FILE (mcp-assert's --coverage-json)",
    )
    parser.add_argument(
        "--min", type=_percent, metavar="N", help="exit 1 when under N%% of the tools are covered"
    )
    parser.set_defaults(handler=coverage)


def coverage(args: argparse.Namespace) -> int:
    from toolproof import api
    from toolproof.core.sanitize import clean

    json_file = Path(args.json) if args.json not in (None, "-") else None
    try:
        result = api.coverage(
            suite_paths(args),
            server=args.server,
            transport=args.transport,
            headers=parse_headers(args.headers),
            timeout=args.timeout,
            protocol=args.protocol,
            minimum=args.min,
            outputs=[target for target in (args.output, json_file) if target is not None],
        )
    except UsageError as error:
        return fail("coverage", error)
    for problem in result.errors:
        print(f"toolproof coverage: {problem}", file=sys.stderr)
    if result.stopped_by is not None or result.measured is None:  # no listing: nothing written
        from toolproof.run.interrupt import Interrupted

        assert result.stopped_by is not None
        return Interrupted(result.stopped_by).report("toolproof coverage")
    from toolproof.author.coverage import coverage_lines

    if args.json == "-":
        sys.stdout.write(result.document())
    else:
        print("\n".join(clean(line) for line in coverage_lines(result.measured)))
    if result.below_minimum:
        print(f"toolproof coverage: {result.measured.percentage}% of the tools covered, under --min "
              f"{args.min}%", file=sys.stderr)
    return result.exit_code
