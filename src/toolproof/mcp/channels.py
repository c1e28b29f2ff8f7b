"""The one choice of how to reach a server from its `ConnectSpec`: start it (stdio) and use its pipes, or
reach it at its URL (Streamable HTTP, SSE). The SDK-facing modules are imported only when a channel is made,
so starting a server loads nothing of the SDK."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING

from toolproof.mcp.process import ServerProcess, run_server
from toolproof.mcp.spec import ConnectSpec

if TYPE_CHECKING:
    from toolproof.mcp.http import HttpChannel
    from toolproof.mcp.stdio import StdioChannel


def start_server(spec: ConnectSpec) -> AbstractAsyncContextManager[ServerProcess]:
    """Start the stdio server `spec` names; stopped (with everything it started) on exit."""
    return run_server(
        spec.command, spec.args, spec.env, spec.cwd, stop_grace=spec.stop_grace, term_grace=spec.term_grace
    )


def channel_for(spec: ConnectSpec, server: ServerProcess | None) -> StdioChannel | HttpChannel:
    """The channel to `server` (started from a stdio spec) or, without one, to `spec.url`."""
    if server is not None:
        from toolproof.mcp.stdio import StdioChannel

        return StdioChannel(server, spec.max_message_bytes)
    from toolproof.mcp.http import HttpChannel  # only an http or sse server needs it

    return HttpChannel(spec)
