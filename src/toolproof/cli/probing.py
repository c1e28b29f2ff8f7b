"""What `lint`, `audit` and `fuzz` share: the server options, the connection spec, reporting the verdicts."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, TypeVar
from urllib.parse import urlsplit

from toolproof.cli.options import (
    add_cwd_option,
    add_headers_option,
    add_output_options,
    add_protocol_option,
    duration_arg,
    headers_from,
    working_directory,
)
from toolproof.exit_codes import ExitCode, UsageError

if TYPE_CHECKING:
    from toolproof.mcp.spec import ConnectSpec
    from toolproof.model.result import CaseResult
    from toolproof.run.interrupt import Interrupted

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
    parser: argparse.ArgumentParser, *, required: bool = True, reports: bool = True
) -> None:
    """--server, --transport, --headers, --timeout, and with `reports` the report options."""
    parser.add_argument(
        "--server",
        required=required,
        metavar="CMD|URL",
        help='the server: a command, split as a shell would but run without one (e.g. "npx -y '
        '@modelcontextprotocol/server-memory"), or the URL of a running server',
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


def connect_spec(args: argparse.Namespace) -> ConnectSpec:
    """The spec for --server/--transport/--headers/--timeout; raises UsageError."""
    from toolproof.mcp.spec import ConnectSpec, protocol_mode
    from toolproof.model.server_config import Transport

    protocol = protocol_mode(args.protocol)
    server = str(args.server or "").strip()
    is_url = server.startswith(("http://", "https://"))
    transport = Transport(args.transport or ("http" if is_url else "stdio"))
    headers = headers_from(args, args.command)
    if transport is not Transport.STDIO:
        if not is_url:
            raise UsageError(f"--transport {transport.value} needs an http:// or https:// URL as --server")
        return ConnectSpec(
            transport=transport, url=server, headers=headers, request_timeout=args.timeout, protocol=protocol
        )
    if is_url:
        raise UsageError("--server is a URL: give --transport sse or http")
    try:
        command = shlex.split(server)
    except ValueError as error:
        raise UsageError(f"--server: {error}") from None
    if not command:
        raise UsageError("--server: no command given")
    if headers:
        raise UsageError("--headers applies only to --transport sse or http")
    return ConnectSpec(
        transport=transport,
        command=command[0],
        args=tuple(command[1:]),
        env=dict(os.environ),
        cwd=working_directory(args, args.command),
        request_timeout=args.timeout,
        protocol=protocol,
    )


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


def secrets(spec: ConnectSpec | None) -> set[str]:
    from toolproof.core.sanitize import secret_values

    headers = dict(spec.headers) if spec is not None else {}
    return secret_values(os.environ, headers) | {value for value in headers.values() if len(value) >= 4}


def source_path(spec: ConnectSpec) -> Path:
    """What results name as their file: the server's host and path, or its command line."""
    if spec.url:
        parts = urlsplit(spec.url)
        return Path(parts.netloc + parts.path)
    return Path(shlex.join([spec.command, *spec.args]))


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


class Reporter:
    """Sends results to the sinks --json/--junit/the terminal asked for, as a run of `total` cases."""

    def __init__(self, args: argparse.Namespace, title: str, secret_values: Iterable[str]) -> None:
        from toolproof.cli.options import reports

        self._sink = reports(args).sink(secret_values)
        self._title = title
        self._results: list[CaseResult] = []

    def start(self, total: int, settings: dict[str, object] | None = None) -> None:
        from toolproof.model.events import RunStarted

        self._sink.handle(RunStarted(total=total, title=self._title, settings=settings or {}))

    def started(self, name: str, index: int, total: int) -> None:
        from toolproof.model.events import CaseStarted

        self._sink.handle(CaseStarted(name=name, index=index, total=total))

    def finished(self, result: CaseResult, index: int, total: int) -> None:
        from toolproof.model.events import CaseFinished

        self._results.append(result)
        self._sink.handle(CaseFinished(result=result, index=index, total=total))

    def all(self, results: Sequence[CaseResult]) -> None:
        for index, result in enumerate(results):
            self.started(result.name, index, len(results))
            self.finished(result, index, len(results))

    def end(self, duration_s: float) -> int:
        from toolproof.api import exit_code_of
        from toolproof.model.events import RunFinished

        self._sink.handle(RunFinished(results=list(self._results), duration_s=duration_s))
        return int(exit_code_of(self._results))


def run_async(work: Callable[[], Awaitable[T]]) -> T | Interrupted:
    """Run an async probe until it ends or a stop signal (SIGTERM, SIGINT, SIGHUP) cancels it, which stops its
    servers; leave no server process behind either way."""
    from toolproof.mcp.process import become_subreaper, reap_strays
    from toolproof.run.interrupt import run_until_signal

    become_subreaper()
    try:
        return run_until_signal(work)
    finally:
        reap_strays()
