"""What the probe calls (`lint`, `audit`, `fuzz`, `conformance`) share: the server they probe, what their
results name as their file, the secrets their reports mask, and running one until it ends or a signal
stops it."""

from __future__ import annotations

import os
import shlex
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar
from urllib.parse import urlsplit

from toolproof.exit_codes import UsageError

if TYPE_CHECKING:
    from toolproof.mcp.errors import RequestFailed
    from toolproof.mcp.spec import ConnectSpec
    from toolproof.model.server_config import AuthConfig
    from toolproof.probe.scan.run import Unreached
    from toolproof.run.interrupt import Interrupted

T = TypeVar("T")


def server_spec(
    server: str,
    *,
    transport: Literal["stdio", "sse", "http"] | None = None,
    headers: Mapping[str, str] | None = None,
    cwd: str | Path | None = None,
    timeout: float = 15.0,
    protocol: str = "2025-11-25",
    auth: AuthConfig | None = None,
    environ: Mapping[str, str] | None = None,
) -> ConnectSpec:
    """The server a probe talks to: a command line (stdio, split as a shell would but run without one, in
    `cwd`, or a scratch directory when None) or the URL of a running server (`transport` http, the default
    for a URL, or sse) with `headers` and `auth`. `timeout`: seconds per request. Raises UsageError."""
    from toolproof.mcp.spec import ConnectSpec, protocol_mode
    from toolproof.model.server_config import Transport

    try:
        mode = protocol_mode(protocol)
    except ValueError as error:
        raise UsageError(str(error)) from None
    server = server.strip()
    is_url = server.startswith(("http://", "https://"))
    kind = Transport(transport or ("http" if is_url else "stdio"))
    given = dict(headers or {})
    if kind is not Transport.STDIO:
        if not is_url:
            raise UsageError(f"--transport {kind.value} needs an http:// or https:// URL as --server")
        return ConnectSpec(
            transport=kind, url=server, headers=given, request_timeout=timeout, protocol=mode, auth=auth
        )
    if is_url:
        raise UsageError("--server is a URL: give --transport sse or http")
    command = command_words(server)
    if given:
        raise UsageError("--headers applies only to --transport sse or http")
    return ConnectSpec(
        transport=kind,
        command=command[0],
        args=tuple(command[1:]),
        env=dict(os.environ if environ is None else environ),
        cwd=None if cwd is None else str(Path(cwd).absolute()),
        request_timeout=timeout,
        protocol=mode,
    )


def command_words(server: str | Sequence[str]) -> list[str]:
    """A stdio server's command line as words (a string split as a shell would, never run by one); raises
    UsageError for a line that cannot be split, or no command."""
    if isinstance(server, str):
        try:
            words = shlex.split(server)
        except ValueError as error:
            raise UsageError(f"--server: {error}") from None
    else:
        words = list(server)
    if not words:
        raise UsageError("--server: no command given")
    return words


def source_path(spec: ConnectSpec) -> Path:
    """What results name as their file: the server's host and path, or its command line."""
    if spec.url:
        parts = urlsplit(spec.url)
        return Path(parts.netloc + parts.path)
    return Path(shlex.join([spec.command, *spec.args]))


def server_secrets(spec: ConnectSpec | None) -> set[str]:
    """The values reports mask for `spec`: secret-looking environment values and its headers' values."""
    from toolproof.core.sanitize import secret_values

    headers = dict(spec.headers) if spec is not None else {}
    return secret_values(os.environ, headers) | {value for value in headers.values() if len(value) >= 4}


def run_guarded(work: Callable[[], Awaitable[T]]) -> T | Interrupted:
    """Run an async probe until it ends or a stop signal (SIGTERM, SIGINT, SIGHUP) cancels it, which stops its
    servers; leave no server process behind either way."""
    from toolproof.mcp.process import become_subreaper, reap_strays
    from toolproof.run.interrupt import run_until_signal

    become_subreaper()
    try:
        return run_until_signal(work)
    finally:
        reap_strays()


PRELOADED: dict[str, tuple[str, ...]] = {
    "lint": ("toolproof.probe.lint_rules", "toolproof.probe.lint"),
    "audit": ("toolproof.probe.audit",),
    "fuzz": ("toolproof.probe.fuzz",),
}
"""What each probe imports while its servers start (`preload`). None of them may import the MCP SDK, which
the session imports in a thread of its own meanwhile: two threads importing the SDK's circular package at
once can deadlock (Python then raises in one of them)."""


def preload(probe: str) -> Callable[[], Awaitable[None]]:
    """Import the `PRELOADED` modules of `probe` in a worker thread started now, so they load while a server
    boots; the returned function waits, off the event loop, until they have."""
    import importlib
    import threading

    modules = PRELOADED[probe]

    def load() -> None:
        for module in modules:
            importlib.import_module(module)

    loading = threading.Thread(target=load, name="toolproof-preload", daemon=True)
    loading.start()

    async def loaded() -> None:
        import anyio.to_thread

        await anyio.to_thread.run_sync(loading.join)
        for module in modules:  # a module that failed to import raises here, where it is used
            importlib.import_module(module)

    return loaded


def unreached(spec: ConnectSpec, error: RequestFailed) -> Unreached:
    """The server `spec` names could not be started, reached or listed, as `error` says."""
    from toolproof.probe.scan.run import Unreached

    return Unreached(str(source_path(spec)), error.failure.message, error.stderr)
