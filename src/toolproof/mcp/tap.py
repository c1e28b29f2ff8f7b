"""A wire tap: sits between any transport and the SDK session and records every message both ways.

The SDK drops notifications it cannot type (vendor methods, invalid params); the tap sees them all.
Unreadable input the transport reports (as Exception items) is recorded as a protocol error and not
passed on. Log and progress notifications stop here too: toolproof reads them from the tap, and the SDK's
handling (a task per notification, no callback set) made a flood of them slow. A reply whose id matches
no pending request (the SDK would drop it and leave the request to time out) is recorded as a protocol
error; when exactly one request is pending, that request fails at once, naming the stray reply.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Literal

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from mcp_types import (
    INVALID_REQUEST,
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    RequestId,
)

from toolproof.mcp.errors import PROTOCOL_VIOLATION
from toolproof.mcp.handoff import BUFFER, put, queued
from toolproof.mcp.sdk_private import ReadStream, TransportStreams, WriteStream
from toolproof.mcp.stdio import ProtocolViolation
from toolproof.model.observation import Notification

_EXCERPT_CHARS = 200
_READ_HERE_ONLY = frozenset({"notifications/message", "notifications/progress"})
_CLOSED = (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream)


@dataclass(frozen=True)
class WireRecord:
    """One message on the wire: `in` is server to client; `at` is seconds since the tap started."""

    direction: Literal["in", "out"]
    at: float
    message: JSONRPCMessage


def _read_here_only(message: JSONRPCMessage) -> bool:
    """A notification toolproof reads from the tap and the SDK has no use for (no callbacks are set)."""
    return isinstance(message, JSONRPCNotification) and message.method in _READ_HERE_ONLY


class WireTap:
    """Records the traffic of one session: every message, the notifications, the protocol errors."""

    def __init__(self, started: float | None = None) -> None:
        self.started = time.perf_counter() if started is None else started
        self.records: list[WireRecord] = []
        self.notifications: list[Notification] = []
        self.protocol_errors: list[str] = []
        self.stray_stdout: list[str] = []  # the lines written to stdout that are not JSON-RPC, as written
        self._pending: set[RequestId] = set()

    def now(self) -> float:
        return time.perf_counter() - self.started

    def forget(self) -> None:
        """Drop what was recorded so far but the initialize request and its reply, so a server that serves
        many cases in turn (`--reuse-server`) costs no memory per case."""
        asked = {
            r.message.id
            for r in self.records
            if isinstance(r.message, JSONRPCRequest) and r.message.method == "initialize"
        }
        exchanged = JSONRPCRequest | JSONRPCResponse | JSONRPCError
        self.records = [r for r in self.records if isinstance(r.message, exchanged) and r.message.id in asked]
        self.notifications = []
        self.protocol_errors = []
        self.stray_stdout = []

    @asynccontextmanager
    async def wrap(
        self, transport: AbstractAsyncContextManager[TransportStreams]
    ) -> AsyncIterator[TransportStreams]:
        """The transport's streams, with every message recorded on its way through."""
        async with transport as (read_stream, write_stream):
            to_session, session_reads = anyio.create_memory_object_stream[SessionMessage | Exception](BUFFER)
            session_writes, from_session = anyio.create_memory_object_stream[SessionMessage](0)
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(self._pump_in, read_stream, to_session)
                tasks.start_soon(self._pump_out, from_session, write_stream)
                try:
                    yield session_reads, session_writes
                finally:
                    tasks.cancel_scope.cancel()
                    session_reads.close()
                    session_writes.close()

    async def _pump_in(
        self,
        source: ReadStream[SessionMessage | Exception],
        sink: MemoryObjectSendStream[SessionMessage | Exception],
    ) -> None:
        async with source, sink:
            try:
                async for first in source:
                    for item in queued(first, source):
                        if isinstance(item, Exception):
                            self.protocol_errors.append(str(item) or type(item).__name__)
                            if isinstance(item, ProtocolViolation) and item.line is not None:
                                self.stray_stdout.append(item.line)
                        else:
                            self._record("in", item.message)
                            if not _read_here_only(item.message):
                                await put(sink, self._matched(item))
            except _CLOSED:
                return

    def _matched(self, item: SessionMessage) -> SessionMessage:
        """`item`, or for a reply whose id no pending request has, an error for the one pending request."""
        message = item.message
        if not isinstance(message, JSONRPCResponse | JSONRPCError) or message.id is None:
            return item
        if message.id in self._pending:
            self._pending.discard(message.id)
            return item
        sent = message.model_dump_json(by_alias=True, exclude_unset=True)
        shown = sent if len(sent) <= _EXCERPT_CHARS else sent[:_EXCERPT_CHARS] + "..."
        self.protocol_errors.append(f"a reply whose id {message.id!r} matches no pending request: {shown}")
        if len(self._pending) != 1:
            return item
        (waiting,) = self._pending
        reason = f"the server replied with id {message.id!r}, but the request's id is {waiting!r}"
        data = {PROTOCOL_VIOLATION: reason}
        error = ErrorData(code=INVALID_REQUEST, message=f"{reason}: {shown}", data=data)
        return SessionMessage(JSONRPCError(jsonrpc="2.0", id=waiting, error=error))

    async def _pump_out(
        self, source: MemoryObjectReceiveStream[SessionMessage], sink: WriteStream[SessionMessage]
    ) -> None:
        async with source, sink:
            try:
                async for item in source:
                    self._record("out", item.message)
                    self._note_out(item.message)
                    await sink.send(item)
            except _CLOSED:
                return

    def _note_out(self, message: JSONRPCMessage) -> None:
        if isinstance(message, JSONRPCRequest):
            self._pending.add(message.id)
        elif isinstance(message, JSONRPCNotification) and message.method == "notifications/cancelled":
            self._pending.discard((message.params or {}).get("requestId"))

    def _record(self, direction: Literal["in", "out"], message: JSONRPCMessage) -> None:
        at = self.now()
        self.records.append(WireRecord(direction, at, message))
        if direction == "in" and isinstance(message, JSONRPCNotification):
            self.notifications.append(Notification(method=message.method, params=message.params, at=at))
