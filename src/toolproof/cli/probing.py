"""What the probe commands (`lint`, `audit`, `fuzz`, `scan`, `load`) share: the server options, the connection
spec, and saying why a server could not be probed."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, TextIO, TypeVar

from toolproof.cli.options import (
    add_cwd_option,
    add_headers_option,
    add_output_options,
    add_protocol_option,
    duration_arg,
    headers_from,
    working_directory,
)
from toolproof.exit_codes import ExitCode

if TYPE_CHECKING:
    from toolproof.api.results import ProbeResult
    from toolproof.mcp.spec import ConnectSpec

T = TypeVar("T")
DEFAULT_TIMEOUT = "15s"
EXIT_CONNECTION = int(ExitCode.USAGE)

COMMON_DIFFERENCES = (
    "Flags go before or after anything; a crash, hang or broken connection "
    "restarts the server before the next tool, so it is never blamed on the tools after it; the server's "
    "stderr is shown with each crash; exit status 2 when the server cannot be started or reached "
    "(mcp-assert: 1)."
)


def add_server_options(
    parser: argparse.ArgumentParser, *, required: bool = True, reports: bool = True, several: bool = False
) -> None:
    """--server (with `several`, repeatable: a list), --transport, --headers, --timeout, and with `reports`
    the report options."""
    parser.add_argument(
        "--server",
        required=required,
        action="append" if several else "store",
        metavar="CMD|URL",
        help='the server: a command, split as a shell would but run without one (e.g. "npx -y '
        '@modelcontextprotocol/server-memory"), or the URL of a running server'
        + ("; repeat it to probe several servers side by side, each as if alone" if several else ""),
    )
    parser.add_argument(
        "--transport",
        choices=("stdio", "sse", "http"),
        help="how to reach it (default: stdio for a command, http (Streamable HTTP) for a URL)",
    )
    add_headers_option(parser)
    add_cwd_option(parser)
    parser.add_argument(
        "--timeout",
        type=duration_arg,
        default=duration_arg(DEFAULT_TIMEOUT),
        metavar="DURATION",
        help=f"limit for each call, e.g. 5s (default {DEFAULT_TIMEOUT})",
    )
    add_protocol_option(parser)
    if reports:
        add_output_options(parser)


def connect_spec(args: argparse.Namespace, *, announce: bool = True) -> ConnectSpec:
    """The spec for --server/--transport/--headers/--cwd/--timeout/--protocol; raises UsageError. A stdio
    server without --cwd runs in a scratch directory, which is said on stderr (with `announce`)."""
    from toolproof.api import server_spec

    server = str(args.server or "").strip()
    is_url = server.startswith(("http://", "https://"))
    stdio = not is_url and (args.transport or "stdio") == "stdio"
    return server_spec(
        server,
        transport=args.transport,
        headers=headers_from(args, args.command),
        cwd=working_directory(args, args.command) if stdio and (announce or args.cwd) else None,
        timeout=args.timeout,
        protocol=args.protocol,
    )


def connect_specs(args: argparse.Namespace) -> list[ConnectSpec]:
    """The spec of each repeated --server, with the other server options (the scratch directories said once);
    raises UsageError."""
    specs: list[ConnectSpec] = []
    for server in args.server:
        said = any(not spec.url and spec.cwd is None for spec in specs)
        specs.append(connect_spec(argparse.Namespace(**{**vars(args), "server": server}), announce=not said))
    return specs


def usage(name: str, message: str) -> int:
    from toolproof.core.sanitize import clean

    print(f"toolproof {name}: {clean(message)}", file=sys.stderr)
    return EXIT_CONNECTION


def cannot_connect(name: str, message: str, stderr: str) -> int:
    """Say the server could not be reached, with its stderr tail; the exit status for it."""
    from toolproof.core.sanitize import clean
    from toolproof.report.describe import stderr_tail

    print(f"toolproof {name}: cannot probe the server: {clean(message)}", file=sys.stderr)
    tail, _ = stderr_tail(clean(stderr), 10)
    if tail:
        print("server stderr:", file=sys.stderr)
        for line in tail:
            print(f"  {line}", file=sys.stderr)
    return EXIT_CONNECTION


def terminal_stream(args: argparse.Namespace) -> TextIO:
    return sys.stderr if args.json == "-" else sys.stdout


def say(text: str, stream: TextIO | None = None) -> None:
    """Print a line of the probe's own output; a reader that has gone (`| head`) silences the stream."""
    from toolproof.core.writing import silence

    out = sys.stdout if stream is None else stream
    try:
        out.write(text + "\n")
        out.flush()
    except (OSError, ValueError):
        silence(out)


def probe_status(name: str, result: ProbeResult) -> int:
    """The exit status of a probe's `result`, after saying on stderr why the server could not be probed, or
    that a signal stopped the probe."""
    from toolproof.cli.outcome import exit_status

    if result.unreached is None:
        return exit_status(f"toolproof {name}", result)
    several = result.also_unreached or result.results
    for server in (result.unreached, *result.also_unreached):
        message = f"{server.server}: {server.message}" if several else server.message
        cannot_connect(name, message, server.stderr)
    return exit_status(f"toolproof {name}", result) if result.stopped_by is not None else EXIT_CONNECTION
