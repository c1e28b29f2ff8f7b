"""`toolproof matrix`: run one suite against several servers and show a case x server table."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.cli.author_options import (
    TRANSPORTS,
    UsageError,
    add_command,
    add_suite_options,
    fail,
    load_items,
    server_config,
    server_options,
    suite_paths,
)
from toolproof.cli.options import (
    add_output_options,
    add_protocol_option,
    add_subscription_wait_option,
    duration_arg,
)

if TYPE_CHECKING:
    from toolproof.model.events import Event
    from toolproof.model.result import CaseResult
    from toolproof.model.server_config import ServerConfig


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = add_command(
        commands,
        "matrix",
        help="run one suite against several servers: a case x server table",
        description="Run every case once per --server NAME=CMD (a command, or a URL with --transport) and "
        "print a table of verdicts, one row per case and one column per server; the JSON and JUnit reports "
        "hold each case as `case [NAME]`. Exit status: 0 all passed, 1 any failed, 2 a usage or load error.",
    )
    add_suite_options(parser)
    parser.add_argument(
        "--server",
        action="append",
        default=[],
        metavar="NAME=CMD",
        help="a server to run the suite against (repeat for each)",
    )
    parser.add_argument(
        "--transport",
        choices=TRANSPORTS,
        help="how every --server is reached: stdio (a command), sse or http (a URL); "
        "default: http for a URL, stdio otherwise",
    )
    parser.add_argument("--headers", metavar="K=V,...", default="", help="HTTP headers for sse/http servers")
    parser.add_argument(
        "--timeout",
        type=duration_arg,
        default=30.0,
        metavar="DURATION",
        help="per-case timeout (default 30s)",
    )
    add_subscription_wait_option(parser)
    add_protocol_option(parser)
    parser.add_argument(
        "--output",
        type=Path,
        metavar="FILE",
        help="also write the table: as JSON when FILE ends in .json, else as Markdown",
    )
    add_output_options(parser)
    parser.set_defaults(handler=matrix)


def named_servers(specs: list[str], transport: str | None, headers: str) -> list[tuple[str, ServerConfig]]:
    servers: list[tuple[str, ServerConfig]] = []
    for spec in specs:
        name, sep, command = spec.partition("=")
        if not sep or not name.strip() or not command.strip():
            raise UsageError(f"--server: expected NAME=CMD, got {spec!r}")
        servers.append((name.strip(), server_config(command.strip(), transport, headers)))
    names = [name for name, _ in servers]
    if len(set(names)) != len(names):
        raise UsageError("--server: each server needs its own NAME")
    if len(servers) < 1:
        raise UsageError("give at least one --server NAME=CMD")
    return servers


def matrix(args: argparse.Namespace) -> int:
    from toolproof.api import exit_code_of
    from toolproof.author.matrix import grid, matrix_items
    from toolproof.cli.options import reports
    from toolproof.core.sanitize import clean
    from toolproof.core.writing import write_atomic
    from toolproof.model.server_case import Case
    from toolproof.run.interrupt import Interrupted, run_until_signal
    from toolproof.run.secrets import run_secrets
    from toolproof.run.server_suite import run_server_suite

    try:
        servers = named_servers(args.server, args.transport, args.headers)
        options = server_options(args)
        items = load_items(suite_paths(args))
    except UsageError as error:
        return fail("matrix", error)
    expanded = matrix_items(items, servers)
    cases = [item for item in items if isinstance(item, Case)]
    finished = _Finished()  # what ran, for the table when a stop signal ends the run early
    sink = reports(args).sink(run_secrets([config for _, config in servers], options.environ), finished)
    outcome = run_until_signal(lambda: run_server_suite(expanded, options, jobs=args.jobs, sink=sink))
    results = finished.results if isinstance(outcome, Interrupted) else outcome
    table = grid(cases, [name for name, _ in servers], results)
    out = sys.stderr if args.json == "-" else sys.stdout
    print("\n" + "\n".join(clean(line) for line in table.lines()), file=out)
    if args.output:
        text = (
            json.dumps(table.json(), indent=2) + "\n"
            if args.output.suffix == ".json"
            else ("\n".join(table.lines()) + "\n")
        )
        try:
            write_atomic(args.output, text)
        except OSError as error:
            return fail("matrix", error)
    if isinstance(outcome, Interrupted):
        return outcome.report("toolproof matrix")
    return exit_code_of(outcome)


class _Finished:
    """A sink that keeps the result of every case that finished."""

    def __init__(self) -> None:
        self.results: list[CaseResult] = []

    def handle(self, event: Event) -> None:
        from toolproof.model.events import CaseFinished

        if isinstance(event, CaseFinished):
            self.results.append(event.result)
