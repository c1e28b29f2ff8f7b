"""A stdio proxy between an agent and its MCP server that records the tool calls passing through.

The server is started without a shell, in its own session, writing to our stderr. Every byte the agent
sends goes to the server's stdin and every byte the server writes goes to the agent, as soon as it arrives,
unchanged; the recorder only reads along. An agent's request is recorded before it is forwarded, so its
response can never be seen first.

When the agent closes our stdin, the server's stdin is closed, and the server may finish as it would
without the proxy. The session ends when the server exits (its stdout closes, or it exited while a child
of it holds its stdout), when the agent stops reading our stdout, when the timeout fires, or on SIGTERM,
SIGINT or SIGHUP (an agent that gives up on a server that does not exit sends one). Then the server and
everything it started are stopped.
"""

from __future__ import annotations

import contextlib
import signal
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

import anyio
import anyio.abc

from toolproof.mcp.process import ServerProcess, run_server
from toolproof.mcp.signals import cancelled_by_signals
from toolproof.model.transcript import Transcript
from toolproof.sources.intercept.recorder import CallRecorder, RecordedCall
from toolproof.sources.traces.audit_log import calls_only

READ_CHUNK = 64 * 1024
STOP_GRACE_S = 0.5
TERM_GRACE_S = 0.5

Ending = Literal["agent", "server", "unread", "timeout", "signal"]
"""Who ended the session: the agent closing it, the server exiting, the agent no longer reading ("unread"),
the timeout, or a stop signal."""


class ByteSource(Protocol):
    async def receive(self) -> bytes:
        """The next bytes; `b""` at the end."""
        ...


class ByteSink(Protocol):
    async def send(self, data: bytes) -> None:
        """Write all of `data`; raise OSError when the reader is gone."""
        ...


@dataclass(frozen=True)
class Interception:
    """What a proxied session recorded and how it ended (`server_exit`: e.g. "exited with code 3";
    `stop_signal`: the signal that ended it, if one did)."""

    calls: list[RecordedCall]
    ending: Ending
    server_exit: str
    duration_s: float
    timeout_s: float | None = None
    stop_signal: signal.Signals | None = None

    def observed(self) -> Transcript:
        """The session as the run it observed: its tool calls in order, no reply."""
        return calls_only(call.tool_call(position) for position, call in enumerate(self.calls))

    def note(self) -> str | None:
        """What a person should know about a session that did not end with the agent closing it."""
        count = len(self.calls)
        recorded = f"{count} tool call{'' if count == 1 else 's'} recorded"
        if self.ending == "timeout":
            return f"the session timed out after {self.timeout_s:g}s; {recorded}"
        if self.stop_signal is not None:
            return f"stopped by {self.stop_signal.name}; {recorded}"
        if self.ending == "unread":
            return f"the agent stopped reading the server's answers before it closed the session; {recorded}"
        if self.ending == "server":
            return f"the server {self.server_exit} before the agent closed the session; {recorded}"
        return None


async def intercept(
    command: Sequence[str],
    env: Mapping[str, str],
    agent_in: ByteSource,
    agent_out: ByteSink,
    *,
    timeout_s: float | None = None,
) -> Interception:
    """Proxy one session between the agent (`agent_in`/`agent_out`) and `command`; no process outlives it.

    Raises SpawnFailed when the server cannot be started.
    """
    started = time.perf_counter()
    recorder = CallRecorder()
    async with run_server(
        command[0],
        command[1:],
        env,
        None,
        stop_grace=STOP_GRACE_S,
        term_grace=TERM_GRACE_S,
        inherit_stderr=True,
    ) as server:
        proxy = _Proxy(server, agent_in, agent_out, recorder)
        ending = await proxy.run(timeout_s)
    recorder.close()
    duration = time.perf_counter() - started
    server_exit = server.exit_description()
    return Interception(recorder.calls, ending, server_exit, duration, timeout_s, proxy.stop_signal)


class _Proxy:
    def __init__(
        self, server: ServerProcess, agent_in: ByteSource, agent_out: ByteSink, recorder: CallRecorder
    ) -> None:
        self._server, self._in, self._out, self._recorder = server, agent_in, agent_out, recorder
        self._agent_closed = False
        self._ending: Ending | None = None
        self._scope = anyio.CancelScope()
        self.stop_signal: signal.Signals | None = None

    async def run(self, timeout_s: float | None) -> Ending:
        with anyio.move_on_after(timeout_s), self._scope:
            async with cancelled_by_signals() as caught, anyio.create_task_group() as tasks:
                tasks.start_soon(self._upstream)
                tasks.start_soon(self._downstream)
                tasks.start_soon(self._watch_exit)
            if caught.signal is not None:
                self.stop_signal = caught.signal
                self._end("signal")
        return self._ending or "timeout"

    def _end(self, why: Ending) -> None:
        if self._ending is None:
            self._ending = why
        self._scope.cancel()

    def _closed_by(self) -> Ending:
        return "agent" if self._agent_closed else "server"

    async def _upstream(self) -> None:
        """Agent to server. Once the server stops reading, the agent's bytes are still read, and dropped."""
        stdin = self._server.process.stdin
        assert stdin is not None
        forwarding = True
        while chunk := await self._in.receive():
            self._recorder.from_agent(chunk)
            if forwarding:
                try:
                    await stdin.send(chunk)
                except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                    forwarding = False
        self._agent_closed = True
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            await stdin.aclose()

    async def _downstream(self) -> None:
        """Server to agent, until the server's stdout closes or the agent stops reading ours."""
        stdout = self._server.process.stdout
        assert stdout is not None
        try:
            while True:
                chunk = await stdout.receive(READ_CHUNK)
                try:
                    await self._out.send(chunk)
                except OSError:
                    self._end("unread")
                    return
                self._recorder.from_server(chunk)
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._end(self._closed_by())

    async def _watch_exit(self) -> None:
        """A server that exited while a child of its still holds its stdout ends the session too."""
        await self._server.exited()
        self._end(self._closed_by())
