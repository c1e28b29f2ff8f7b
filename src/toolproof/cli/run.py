"""`toolproof run`: run server test suites (mcp-assert YAML) against real MCP servers."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.cli.options import add_output_options, duration_arg, jobs_arg

if TYPE_CHECKING:
    from toolproof.sources.options import Protocol, ServerOptions

# One case per core: measured on 2 cores, Python SDK servers ran fastest at 2 (4 was 35% slower) and Node
# servers about equally fast at 2 and 4, since a case gives up its slot while its server shuts down.
DEFAULT_JOBS = os.cpu_count() or 2


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "run",
        help="run server test suites against real MCP servers",
        description="Run every case of the given suite files or directories and report a verdict for each. "
        "Exit status: 0 all passed, 1 any failed, 2 usage or load error.",
    )
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
    parser.add_argument(
        "--server",
        metavar="CMD",
        help='override every case\'s stdio server command, e.g. --server "node dist/index.js"',
    )
    parser.add_argument("--docker", metavar="IMAGE", help="run every stdio server inside this Docker image")
    parser.add_argument(
        "--timeout",
        type=duration_arg,
        default=30.0,
        metavar="DURATION",
        help="per-case timeout, e.g. 30s, 1m, 2.5 (seconds); a case's own timeout wins (default 30s)",
    )
    parser.add_argument(
        "-j",
        "--jobs",
        type=jobs_arg,
        default=DEFAULT_JOBS,
        metavar="N",
        help=f"cases run at once (default: one per core, {DEFAULT_JOBS})",
    )
    parser.add_argument(
        "-k",
        dest="select",
        metavar="PATTERN",
        help="only cases whose name or file matches, e.g. -k 'read and not missing'",
    )
    parser.add_argument(
        "--protocol",
        choices=("2025-11-25", "2026-07-28", "auto"),
        default="2025-11-25",
        help="protocol era: the 2025-11-25 initialize handshake (default), the 2026-07-28 "
        "era, or auto (discover, then fall back)",
    )
    parser.add_argument("--collect-only", action="store_true", help="list the cases without running them")
    add_output_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from toolproof.sources.options import ServerOptions

    paths = [*args.paths, *args.suite]
    if not paths:
        print("toolproof run: give at least one suite file or directory", file=sys.stderr)
        return 2
    if args.fixture is not None and not args.fixture.is_dir():
        print(f"toolproof run: --fixture {args.fixture}: not a directory", file=sys.stderr)
        return 2
    try:
        override = tuple(shlex.split(args.server)) if args.server else ()
    except ValueError as error:
        print(f"toolproof run: --server: {error}", file=sys.stderr)
        return 2
    protocol: Protocol = "legacy" if args.protocol == "2025-11-25" else args.protocol
    options = ServerOptions(
        environ=dict(os.environ),
        fixture=args.fixture.resolve() if args.fixture else None,
        timeout_s=args.timeout,
        server_override=override,
        docker=args.docker or "",
        protocol=protocol,
    )
    return execute_run(paths, options, args)


def execute_run(paths: list[Path], options: ServerOptions, args: argparse.Namespace) -> int:
    """Load, select, run and report; returns the exit status."""
    import anyio

    from toolproof.cli.reporting import build_sinks, exit_status
    from toolproof.load import SelectionError, SuiteNotFound, discover, load_file, select
    from toolproof.model.suite import Case
    from toolproof.report.sanitize import secret_values
    from toolproof.run.server_suite import run_server_suite

    try:
        items = [item for path in discover(paths) for item in load_file(path)]
        chosen = {id(case) for case in select([i for i in items if isinstance(i, Case)], args.select)}
    except (SuiteNotFound, SelectionError) as problem:
        print(f"toolproof run: {problem}", file=sys.stderr)
        return 2
    items = [item for item in items if not isinstance(item, Case) or id(item) in chosen]
    if args.collect_only:
        for item in items:
            print(item.node_id if isinstance(item, Case) else f"{item} (load error)")
        return 2 if len(items) > len(chosen) else 0
    secrets: set[str] = set()
    for item in items:
        if isinstance(item, Case):
            secrets |= secret_values(item.server.env, item.server.headers)
    sink = build_sinks(args, secrets)
    results = anyio.run(lambda: run_server_suite(items, options, jobs=args.jobs, sink=sink))
    return exit_status(results)
