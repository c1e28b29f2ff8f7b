"""Options shared by the authoring commands (init, generate, snapshot, coverage, watch, matrix).

Each takes mcp-assert's flags (`--suite`, `--server`, `--fixture`, `--timeout`, `--output`, `--transport`,
`--headers`) as well as positional paths, in any order.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from toolproof.cli import Parser
from toolproof.cli.options import add_protocol_option, add_suite_paths, duration_arg, jobs_arg, parse_headers
from toolproof.exit_codes import ExitCode, UsageError

if TYPE_CHECKING:
    from toolproof.api import Protocol
    from toolproof.api.authoring import Transport
    from toolproof.model.server_config import ServerConfig
    from toolproof.sources.options import ServerOptions

TRANSPORTS = ("stdio", "sse", "http")


__all__ = ["UsageError"]


class IntermixedParser(Parser):
    """Options and positional paths in any order (`snapshot evals --update more-evals`)."""

    _inner = False

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if self._inner:
            return super().parse_known_args(args, namespace)
        self._inner = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._inner = False


def add_command(
    commands: argparse._SubParsersAction[argparse.ArgumentParser], name: str, **kwargs: Any
) -> argparse.ArgumentParser:
    """A subcommand parser that takes options and positional arguments in any order."""
    default = commands._parser_class
    commands._parser_class = IntermixedParser
    try:
        return commands.add_parser(name, **kwargs)
    finally:
        commands._parser_class = default


def add_suite_options(parser: argparse.ArgumentParser, *, jobs: bool = True) -> None:
    add_suite_paths(parser)
    if jobs:
        parser.add_argument(
            "-j",
            "--jobs",
            type=jobs_arg,
            default=os.cpu_count() or 2,
            metavar="N",
            help="cases run at once (default: one per core)",
        )


def add_server_options(parser: argparse.ArgumentParser, *, server_help: str, timeout: float = 30.0) -> None:
    parser.add_argument("--server", metavar="CMD", help=server_help)
    parser.add_argument(
        "--transport",
        choices=TRANSPORTS,
        help="how --server is reached: stdio (a command), sse or http (a URL); "
        "default: http for a URL, stdio otherwise",
    )
    parser.add_argument(
        "--headers",
        metavar="K=V,...",
        default="",
        help="HTTP headers for an sse/http --server, e.g. 'Authorization=Bearer ${TOKEN}'",
    )
    parser.add_argument(
        "--timeout",
        type=duration_arg,
        default=timeout,
        metavar="DURATION",
        help=f"per-case (or per-request) timeout, e.g. 30s, 1m (default {timeout:g}s)",
    )
    add_protocol_option(parser)


def fail(command: str, error: Exception) -> int:
    """Say what went wrong on stderr; the usage exit status."""
    print(f"toolproof {command}: {error}", file=sys.stderr)
    return ExitCode.USAGE


def server_config(spec: str, transport: str | None, headers: str) -> ServerConfig:
    """The server `--server` names, with the headers of `--headers` (see `api.authoring.server_config`)."""
    from toolproof.api.authoring import server_config as config

    return config(spec, transport, parse_headers(headers))  # type: ignore[arg-type]


class SuiteServer(TypedDict):
    """The server settings of the commands that run a suite (`snapshot`, `matrix`), as the API takes them."""

    transport: Transport | None
    headers: dict[str, str]
    fixture: Path | None
    timeout: float
    subscription_wait: float
    protocol: Protocol


def suite_server(args: argparse.Namespace) -> SuiteServer:
    """--transport, --headers, --fixture, --timeout, --subscription-wait and --protocol; raises UsageError."""
    return SuiteServer(
        transport=args.transport,
        headers=parse_headers(args.headers),
        fixture=args.fixture,
        timeout=args.timeout,
        subscription_wait=args.subscription_wait,
        protocol=args.protocol,
    )


def given_server(args: argparse.Namespace) -> ServerConfig | None:
    return server_config(args.server, args.transport, args.headers) if args.server else None


def server_options(args: argparse.Namespace) -> ServerOptions:
    """The run-wide server settings of the flags; --subscription-wait only where the command takes it (the
    commands that run suites)."""
    from toolproof.mcp.spec import protocol_mode
    from toolproof.sources.options import SUBSCRIPTION_WAIT_S, ServerOptions

    fixture: Path | None = getattr(args, "fixture", None)
    if fixture is not None and not fixture.is_dir():
        raise UsageError(f"--fixture {fixture}: not a directory")
    return ServerOptions(
        environ=dict(os.environ),
        fixture=fixture.resolve() if fixture else None,
        timeout_s=args.timeout,
        subscription_wait_s=getattr(args, "subscription_wait", SUBSCRIPTION_WAIT_S),
        protocol=protocol_mode(args.protocol),
    )


def suite_paths(args: argparse.Namespace) -> list[Path]:
    paths: list[Path] = [*args.paths, *args.suite]
    if not paths:
        raise UsageError("give at least one suite file or directory (PATH or --suite)")
    return paths
