"""`toolproof run`: run server test suites (mcp-assert YAML) against real MCP servers."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.cli.options import add_output_options, duration_arg, jobs_arg, settle_json

if TYPE_CHECKING:
    from toolproof.load import LoadError
    from toolproof.model.server_case import Case
    from toolproof.sources.options import Protocol, ServerOptions

# One case per core: measured on 2 cores, Python SDK servers ran fastest at 2 (4 was 35% slower) and Node
# servers about equally fast at 2 and 4, since a case gives up its slot while its server shuts down.
DEFAULT_JOBS = os.cpu_count() or 2
_NAMED = 3  # cases named in a warning before "and N more"


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "run",
        help="run server test suites against real MCP servers",
        description="Run every case of the given suite files or directories and report a verdict for each. "
        "Exit status: 0 all passed, 1 any failed, 2 usage or load error (or -k selected no case), "
        "128 + the signal number when stopped by SIGINT, SIGTERM or SIGHUP.",
    )
    add_suite_options(parser)
    parser.set_defaults(handler=run)


def add_suite_options(parser: argparse.ArgumentParser) -> None:
    """The options of `run`, which `ci` shares."""
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
    parser.add_argument(
        "--trials",
        type=jobs_arg,
        default=1,
        metavar="N",
        help="run every case N times and report its pass rate",
    )
    add_output_options(parser)


def run(args: argparse.Namespace) -> int:
    from toolproof.sources.options import ServerOptions

    settle_json(args, "paths")
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
    from toolproof.model.server_case import Case

    items = selected_items(paths, args.select)
    if isinstance(items, int):
        return items
    if args.collect_only:
        for item in items:
            print(item.node_id if isinstance(item, Case) else f"{item} (load error)")
        return 0 if all(isinstance(item, Case) for item in items) else 2
    return run_items(items, options, args)


def selected_items(paths: list[Path], pattern: str | None) -> list[Case | LoadError] | int:
    """Every load error and the cases `pattern` (-k) selects, in file order; or, after saying why on stderr,
    the exit status 2 (a missing path, a pattern that does not parse or that selects none of the cases)."""
    from toolproof.load import SelectionError, SuiteNotFound, discover, load_file, select
    from toolproof.model.server_case import Case

    try:
        items = [item for path in discover(paths) for item in load_file(path)]
        found = [item for item in items if isinstance(item, Case)]
        chosen = {id(case) for case in select(found, pattern)}
    except (SuiteNotFound, SelectionError) as problem:
        print(f"toolproof run: {problem}", file=sys.stderr)
        return 2
    if found and not chosen:
        print(f"toolproof run: -k {pattern!r} selects none of the {len(found)} cases found", file=sys.stderr)
        return 2
    return [item for item in items if not isinstance(item, Case) or id(item) in chosen]


def run_items(items: list[Case | LoadError], options: ServerOptions, args: argparse.Namespace) -> int:
    """Run and report the items; a stop signal ends the run cleanly (see `run_until_signal`)."""
    from toolproof.cli.interrupt import Interrupted, run_until_signal
    from toolproof.cli.reporting import build_sinks, prioritised, verdict
    from toolproof.model.server_case import Case
    from toolproof.run.secrets import run_secrets
    from toolproof.run.server_suite import run_server_suite

    items = prioritised(items, lambda item: item.node_id if isinstance(item, Case) else None, args)
    cases = [item for item in items if isinstance(item, Case)]
    warn_unused_overrides(cases, options)
    sink = build_sinks(args, run_secrets([case.server for case in cases], options.environ))
    outcome = run_until_signal(
        lambda: run_server_suite(
            items, options, jobs=args.jobs, sink=sink, trials=args.trials, maxfail=args.maxfail or 0
        )
    )
    if isinstance(outcome, Interrupted):
        return outcome.report(f"toolproof {args.command}")
    return verdict(args, outcome)


def warn_unused_overrides(cases: list[Case], options: ServerOptions) -> None:
    """One warning naming the http/sse cases that --server and --docker (stdio only) do not change."""
    from toolproof.core.writing import warn
    from toolproof.model.server_case import Transport

    given = (("--server", options.server_override), ("--docker", options.docker))
    flags = [flag for flag, value in given if value]
    remote = [case.name for case in cases if case.server.transport is not Transport.STDIO]
    if not flags or not remote:
        return
    shown = ", ".join(repr(name) for name in remote[:_NAMED]) + (
        f" and {len(remote) - _NAMED} more" if len(remote) > _NAMED else ""
    )
    count = f"{len(remote)} case{'' if len(remote) == 1 else 's'}"
    verb = "applies" if len(flags) == 1 else "apply"
    warn(f"{' and '.join(flags)} {verb} to stdio servers only; not used for {count} over http/sse: {shown}")
