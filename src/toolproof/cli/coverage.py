"""`toolproof coverage`: which tools, resources and prompts of a server the suite exercises."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.cli.author_options import (
    UsageError,
    add_command,
    add_server_options,
    add_suite_options,
    fail,
    given_server,
    load_items,
    server_options,
    suite_paths,
)
from toolproof.exit_codes import ExitCode

if TYPE_CHECKING:
    from toolproof.author.listing import Listing
    from toolproof.model.server_case import Case
    from toolproof.model.server_config import ServerConfig
    from toolproof.sources.options import ServerOptions


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


async def _listing(servers: list[ServerConfig], options: ServerOptions) -> Listing:
    """The union of what the servers list (one server, in the usual case)."""
    from toolproof.author.listing import Listing, list_server

    listings = [await list_server(server, options) for server in servers]
    union = Listing()
    for listing in listings:
        for kind in ("tools", "resources", "templates", "prompts"):
            known = {json.dumps(item, sort_keys=True) for item in getattr(union, kind)}
            getattr(union, kind).extend(
                item for item in getattr(listing, kind) if json.dumps(item, sort_keys=True) not in known
            )
    return union


def _servers(cases: list[Case], given: ServerConfig | None) -> list[ServerConfig]:
    if given is not None:
        return [given]
    from toolproof.model.server_case import TrajectoryBlock

    servers: list[ServerConfig] = []
    for case in cases:
        if not isinstance(case.block, TrajectoryBlock) and case.server not in servers:
            servers.append(case.server)
    if not servers:
        raise UsageError("no case names a server; give one with --server")
    return servers


def coverage(args: argparse.Namespace) -> int:
    from toolproof.author.coverage import coverage_json, coverage_lines, measure
    from toolproof.core.sanitize import clean
    from toolproof.core.writing import write_atomic
    from toolproof.load import LoadError
    from toolproof.mcp.errors import RequestFailed
    from toolproof.model.server_case import Case
    from toolproof.run.interrupt import Interrupted, run_until_signal

    try:
        paths = suite_paths(args)
        options = server_options(args)
        items = load_items(paths)
        cases = [item for item in items if isinstance(item, Case)]
        servers = _servers(cases, given_server(args))
    except UsageError as error:
        return fail("coverage", error)
    for problem in (item for item in items if isinstance(item, LoadError)):
        print(f"toolproof coverage: {problem}", file=sys.stderr)
    try:
        listing = run_until_signal(lambda: _listing(servers, options))
    except RequestFailed as error:
        return fail("coverage", Exception(clean(error.failure.message)))
    if isinstance(listing, Interrupted):  # no coverage without the whole listing: nothing to write
        return listing.report("toolproof coverage")
    measured = measure(cases, listing)
    report = json.dumps(coverage_json(measured), indent=2, ensure_ascii=False) + "\n"
    for target in (args.output, Path(args.json) if args.json not in (None, "-") else None):
        if target is not None:
            try:
                write_atomic(target, report)
            except OSError as error:
                return fail("coverage", error)
    if args.json == "-":
        sys.stdout.write(report)
    else:
        print("\n".join(clean(line) for line in coverage_lines(measured)))
    if args.min is not None and measured.percentage < args.min:
        print(
            f"toolproof coverage: {measured.percentage}% of the tools covered, under --min {args.min}%",
            file=sys.stderr,
        )
        return ExitCode.FAILED
    return ExitCode.USAGE if any(isinstance(item, LoadError) for item in items) else ExitCode.OK
