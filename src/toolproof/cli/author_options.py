"""Options shared by the authoring commands (init, generate, snapshot, coverage, watch, matrix).

Each takes mcp-assert's flags (`--suite`, `--server`, `--fixture`, `--timeout`, `--output`, `--transport`,
`--headers`) as well as positional paths, in any order.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolproof.cli import Parser
from toolproof.cli.options import add_protocol_option, duration_arg, jobs_arg
from toolproof.exit_codes import ExitCode, UsageError

if TYPE_CHECKING:
    from toolproof.load import LoadError
    from toolproof.model.server_case import Case
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


def parse_headers(text: str) -> dict[str, str]:
    """`k=v,k2=v2` as mcp-assert reads --headers."""
    headers: dict[str, str] = {}
    for part in filter(None, (piece.strip() for piece in text.split(","))):
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--headers: expected KEY=VALUE, got {part!r}")
        headers[key.strip()] = value.strip()
    return headers


def server_config(spec: str, transport: str | None, headers: str) -> ServerConfig:
    """The server `--server` names: a command line (stdio; split like a shell, never run by one) or a URL
    (Streamable HTTP unless `transport` says otherwise)."""
    from toolproof.model.server_config import ServerConfig, Transport

    is_url = spec.startswith(("http://", "https://"))
    kind = Transport(transport or ("http" if is_url else "stdio"))
    if kind is Transport.STDIO:
        try:
            words = shlex.split(spec)
        except ValueError as error:
            raise UsageError(f"--server: {error}") from None
        if not words:
            raise UsageError("--server: empty command")
        return ServerConfig(command=words[0], args=words[1:])
    if not spec.startswith(("http://", "https://")):
        raise UsageError(f"--server: a {transport} server is a http:// or https:// URL, got {spec!r}")
    return ServerConfig(transport=kind, url=spec, headers=parse_headers(headers))


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


def load_items(paths: Sequence[Path]) -> list[Case | LoadError]:
    """Every case and load error of the files the paths name, in order; UsageError for a missing path."""
    from toolproof.load import SuiteNotFound, load_paths

    try:
        return load_paths(paths)
    except SuiteNotFound as error:
        raise UsageError(str(error)) from None


def with_server(items: Sequence[Case | LoadError], server: ServerConfig | None) -> list[Case | LoadError]:
    """The items with every case pointed at `server` (its env, cwd and client capabilities kept)."""
    from toolproof.model.server_case import Case

    if server is None:
        return list(items)
    fields = ("command", "args", "transport", "url", "headers")
    replaced = {name: getattr(server, name) for name in fields}
    return [
        item.model_copy(update={"server": item.server.model_copy(update=replaced)})
        if isinstance(item, Case)
        else item
        for item in items
    ]
