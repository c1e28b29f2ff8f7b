"""`toolproof conformance`: check that any server follows the MCP protocol itself."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.cli.auth_options import add_auth_options, auth_from_args
from toolproof.cli.options import (
    add_cwd_option,
    add_headers_option,
    add_output_options,
    duration_arg,
    headers_from,
    reports,
    working_directory,
)
from toolproof.exit_codes import ExitCode, UsageError

if TYPE_CHECKING:
    from toolproof.model.result import CaseResult

_NAME = "toolproof conformance"
DEFAULT_TIMEOUT_S = 10.0


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "conformance",
        help="check that a server follows the MCP protocol (lifecycle, errors, pagination, capabilities)",
        description="Start (stdio) or reach (http, sse) a server and check it against the protocol rules "
        "that hold for every server, one result per check, each naming the spec section it enforces. "
        "Exit status: 0 every check passed or was skipped (or failed as the --baseline file expects), 1 any "
        "other failed, 2 usage error or the server could not be started, reached or initialized.",
    )
    parser.add_argument(
        "--server",
        required=True,
        metavar="CMD|URL",
        help='a stdio command, e.g. --server "node dist/index.js", or an http(s) URL',
    )
    parser.add_argument(
        "--transport",
        choices=("http", "sse"),
        default="http",
        help="for a URL: Streamable HTTP (default) or the legacy SSE transport",
    )
    add_headers_option(parser)
    add_cwd_option(parser)
    parser.add_argument(
        "--timeout",
        type=duration_arg,
        default=DEFAULT_TIMEOUT_S,
        metavar="DURATION",
        help=f"per-request timeout (default {DEFAULT_TIMEOUT_S:g}s)",
    )
    parser.add_argument(
        "--inputs",
        type=Path,
        metavar="FILE",
        help="YAML naming tools the probe may call (with their arguments), prompt arguments and resource "
        "template values; without it only read-only tools that need no argument are called",
    )
    add_auth_options(parser)
    add_output_options(parser)
    parser.set_defaults(handler=conformance)


def conformance(args: argparse.Namespace) -> int:
    from toolproof.api import exit_code_of, report_results
    from toolproof.cli.probing import source_path
    from toolproof.core.sanitize import secret_values
    from toolproof.mcp.spec import ConnectSpec
    from toolproof.model.server_config import Transport
    from toolproof.probe.conformance import check_server
    from toolproof.probe.conformance.expected_failures import as_judged
    from toolproof.probe.conformance.inputs import InputsError, ProbeInputs, read_inputs
    from toolproof.run.interrupt import Interrupted, run_until_signal
    from toolproof.sources.connect import expand_auth

    try:
        headers = headers_from(args, "conformance")
    except UsageError as error:
        print(f"{_NAME}: {error}", file=sys.stderr)
        return ExitCode.USAGE
    try:
        inputs = read_inputs(args.inputs) if args.inputs else ProbeInputs()
    except InputsError as error:
        print(f"{_NAME}: --inputs: {error}", file=sys.stderr)
        return ExitCode.USAGE
    try:
        auth = auth_from_args(args)
    except OSError as error:
        print(f"{_NAME}: --oauth-private-key-file: {error}", file=sys.stderr)
        return ExitCode.USAGE
    if args.server.startswith(("http://", "https://")):
        spec = ConnectSpec(
            transport=Transport(args.transport),
            url=args.server,
            headers=headers,
            request_timeout=args.timeout,
            auth=expand_auth(auth, os.environ) if auth else None,
        )
    else:
        try:
            command = shlex.split(args.server)
        except ValueError as error:
            print(f"{_NAME}: --server: {error}", file=sys.stderr)
            return ExitCode.USAGE
        if not command:
            print(f"{_NAME}: --server: empty command", file=sys.stderr)
            return ExitCode.USAGE
        spec = ConnectSpec(
            transport=Transport.STDIO,
            command=command[0],
            args=tuple(command[1:]),
            env=dict(os.environ),
            cwd=working_directory(args, "conformance"),
            request_timeout=args.timeout,
        )
    sink = reports(args).sink(secret_values(os.environ, headers))
    started = time.perf_counter()
    results: list[CaseResult] = []  # filled as checks are made: a stop by signal reports those
    outcome = run_until_signal(lambda: check_server(spec, source_path(spec), results, inputs))
    report_results(results, sink, f"{_NAME} {args.server}", time.perf_counter() - started)
    if isinstance(outcome, Interrupted):
        return outcome.report(f"toolproof {_NAME}")
    return exit_code_of(as_judged(results, args.baseline))
