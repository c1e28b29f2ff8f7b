"""`toolproof run`: run server test suites (mcp-assert YAML) against real MCP servers."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from typing import TYPE_CHECKING

from toolproof.cli.auth_options import add_auth_options, auth_from_args
from toolproof.cli.options import (
    add_output_options,
    add_protocol_option,
    add_resume_option,
    add_reuse_option,
    add_subscription_wait_option,
    add_suite_paths,
    duration_arg,
    jobs_arg,
    reports,
    settle_json,
)
from toolproof.cli.outcome import exit_status
from toolproof.exit_codes import ExitCode, UsageError

if TYPE_CHECKING:
    from toolproof.api import Collection

# One case per core: measured on 2 cores, Python SDK servers ran fastest at 2 (4 was 35% slower) and Node
# servers about equally fast at 2 and 4, since a case gives up its slot while its server shuts down.
DEFAULT_JOBS = os.cpu_count() or 2


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "run",
        help="run server test suites against real MCP servers",
        description="Run every case of the given suite files or directories and report a verdict for each. "
        "Exit status: 0 all passed, 1 any failed, 2 usage or load error (or -k selected no case), "
        "5 no case found, 128 + the signal number when stopped by SIGINT, SIGTERM "
        "or SIGHUP.",
    )
    add_run_options(parser)
    parser.set_defaults(handler=run)


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """The options of `run`, which `ci` shares."""
    add_suite_paths(parser)
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
    add_subscription_wait_option(parser)
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
    add_protocol_option(parser)
    parser.add_argument("--collect-only", action="store_true", help="list the cases without running them")
    parser.add_argument(
        "--trials",
        type=jobs_arg,
        default=1,
        metavar="N",
        help="run every case N times and report its pass rate",
    )
    add_auth_options(parser)
    add_reuse_option(parser)
    add_resume_option(parser)
    add_output_options(parser, run_control=True)


def run(args: argparse.Namespace) -> int:
    from toolproof import api

    settle_json(args, "paths")
    command = f"toolproof {args.command}"
    try:
        options = api.server_options(
            fixture=args.fixture,
            server=args.server,
            docker=args.docker,
            timeout=args.timeout,
            subscription_wait=args.subscription_wait,
            protocol=args.protocol,
            reuse_server=args.reuse_server,
        )
        collection = api.collect_suite(
            [*args.paths, *args.suite],
            select=args.select,
            shard=args.shard,
            resume=args.resume,
            last_failed=args.last_failed,
            failed_first=args.failed_first,
            maxfail=args.maxfail or 0,
        )
        options = replace(options, auth=auth_from_args(args))
    except UsageError as problem:
        print(f"{command}: {problem}", file=sys.stderr)
        return ExitCode.USAGE
    except OSError as error:
        print(f"{command}: --oauth-private-key-file: {error}", file=sys.stderr)
        return ExitCode.USAGE
    if args.collect_only:
        return collect_only(collection, args)
    result = api.run_collection(
        collection,
        options,
        jobs=args.jobs,
        reports=reports(args),
        handle_signals=True,
        trials=args.trials,
        slowest_first=not args.failed_first,  # --ff: the failed cases start first
    )
    return exit_status(command, result)


def collect_only(collection: Collection, args: argparse.Namespace) -> int:
    """List the cases (and the documents that did not load) without running them, on the terminal and in
    the --json / --junit reports, where each case is skipped as not run."""
    from toolproof import api
    from toolproof.model.result import CaseResult, Status
    from toolproof.model.server_case import Case
    from toolproof.run.load_errors import load_error_results

    listing = sys.stderr if args.json == "-" else sys.stdout
    note = collection.sharded.empty_note if collection.sharded and not collection.items else None
    if note is not None:
        print(f"toolproof {args.command} --collect-only: {note}", file=listing)
    for item in collection.items:
        print(item.node_id if isinstance(item, Case) else f"{item} (load error)", file=listing)
    results = load_error_results(collection.errors) + [
        CaseResult(
            name=case.name,
            file=case.source.file,
            line=case.source.line,
            status=Status.SKIP,
            reason="collected, not run (--collect-only)",
        )
        for case in collection.cases
    ]
    files = api.Reports(json=args.json, junit=args.junit, sharded=collection.sharded)
    api.report_results(results, files.sink(()), "toolproof run --collect-only", 0.0)
    if collection.errors:
        return ExitCode.USAGE
    return ExitCode.OK if collection.cases or note is not None else ExitCode.NO_TESTS
