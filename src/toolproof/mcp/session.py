"""Open a session with a server: start it first, then load the MCP SDK and initialize.

A stdio server is started before the SDK is imported, and the import runs in a worker thread, so that the
first servers of a run boot while toolproof loads the SDK (about 0.3 s of CPU, once per process) instead
of after it. This module imports nothing of the SDK itself.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING

import anyio.to_thread

from toolproof.mcp.errors import RequestFailed, classify, expected, is_cancellation, leaf
from toolproof.mcp.process import ServerProcess, run_server
from toolproof.mcp.spec import ConnectSpec
from toolproof.model.server_config import Transport

if TYPE_CHECKING:
    from toolproof.mcp.client import Session

CLIENT_MODULE = "toolproof.mcp.client"


@asynccontextmanager
async def open_session(spec: ConnectSpec) -> AsyncIterator[Session]:
    """Start or reach the server, initialize, and yield the session; on exit close it and stop the server.

    Stopping a stdio server (and everything it started) is shielded from cancellation, so an outer
    `anyio.fail_after` still cleans up. Raises `RequestFailed` if the server cannot be started or
    initialized. Exceptions leave as they were raised: never wrapped in the exception groups of the
    task groups they pass through.
    """
    try:
        async with _connect(spec) as session:
            yield session
    except BaseExceptionGroup as group:
        error = leaf(group)
        if is_cancellation(error):
            raise
        raise error from error.__cause__


@asynccontextmanager
async def _connect(spec: ConnectSpec) -> AsyncIterator[Session]:
    started = time.perf_counter()
    async with AsyncExitStack() as stack:
        server: ServerProcess | None = None
        if spec.transport is Transport.STDIO:
            try:
                server = await stack.enter_async_context(
                    run_server(
                        spec.command,
                        spec.args,
                        spec.env,
                        spec.cwd,
                        stop_grace=spec.stop_grace,
                        term_grace=spec.term_grace,
                    )
                )
            except Exception as error:
                if not expected(error):
                    raise
                failure = classify(error, during="start", timeout=spec.request_timeout)
                raise RequestFailed(failure) from error
        await anyio.to_thread.run_sync(importlib.import_module, CLIENT_MODULE)
        from toolproof.mcp.client import initialize  # loaded just above, off the event loop

        yield await initialize(stack, spec, server, started)
