"""`toolproof matrix`: run one suite against several servers and show a case x server table."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from toolproof.cli.author_options import (
    TRANSPORTS,
    UsageError,
    add_command,
    add_suite_options,
    fail,
    suite_paths,
    suite_server,
)
from toolproof.cli.options import (
    add_output_options,
    add_protocol_option,
    add_subscription_wait_option,
    duration_arg,
)


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


def named_servers(specs: list[str]) -> dict[str, str]:
    """`--server NAME=CMD` flags as {NAME: CMD}; raises UsageError."""
    servers: dict[str, str] = {}
    for spec in specs:
        name, sep, command = spec.partition("=")
        if not sep or not name.strip() or not command.strip():
            raise UsageError(f"--server: expected NAME=CMD, got {spec!r}")
        if name.strip() in servers:
            raise UsageError("--server: each server needs its own NAME")
        servers[name.strip()] = command.strip()
    return servers


def matrix(args: argparse.Namespace) -> int:
    from toolproof import api
    from toolproof.cli.options import reports
    from toolproof.cli.outcome import exit_status
    from toolproof.core.sanitize import clean

    try:
        result = api.matrix(
            suite_paths(args),
            named_servers(args.server),
            jobs=args.jobs,
            output=args.output,
            reports=reports(args),
            **suite_server(args),
        )
    except UsageError as error:
        return fail("matrix", error)
    out = sys.stderr if args.json == "-" else sys.stdout
    if result.table is not None:
        print("\n" + "\n".join(clean(line) for line in result.table.lines()), file=out)
    return exit_status("toolproof matrix", result)
