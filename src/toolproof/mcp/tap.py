"""A wire tap: sits between any transport and the SDK session and records every message both ways.

The SDK drops notifications it cannot type (vendor methods, invalid params); the tap sees them all.
Unreadable input the transport reports (as Exception items) is recorded as a protocol error and not
passed on.
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
from mcp_types import JSONRPCMessage, JSONRPCNotification

from toolproof.mcp.sdk_private import ReadStream, TransportStreams, WriteStream
from toolproof.model.observation import Notification

_CLOSED = (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream)


@dataclass(frozen=True)
class WireRecord:
    """One message on the wire: `in` is server to client; `at` is seconds since the tap started."""

    direction: Literal["in", "out"]
    at: float
    message: JSONRPCMessage


class WireTap:
    """Records the traffic of one session: every message, the notifications, the protocol errors."""

    def __init__(self, started: float | None = None) -> None:
        self.started = time.perf_counter() if started is None else started
        self.records: list[WireRecord] = []
        self.notifications: list[Notification] = []
        self.protocol_errors: list[str] = []

    def now(self) -> float:
        return time.perf_counter() - self.started

    @asynccontextmanager
    async def wrap(
        self, transport: AbstractAsyncContextManager[TransportStreams]
    ) -> AsyncIterator[TransportStreams]:
        """The transport's streams, with every message recorded on its way through."""
        async with transport as (read_stream, write_stream):
            to_session, session_reads = anyio.create_memory_object_stream[SessionMessage | Exception](0)
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
                async for item in source:
                    if isinstance(item, Exception):
                        self.protocol_errors.append(str(item) or type(item).__name__)
                        continue
                    self._record("in", item.message)
                    await sink.send(item)
            except _CLOSED:
                return

    async def _pump_out(
        self, source: MemoryObjectReceiveStream[SessionMessage], sink: WriteStream[SessionMessage]
    ) -> None:
        async with source, sink:
            try:
                async for item in source:
                    self._record("out", item.message)
                    await sink.send(item)
            except _CLOSED:
                return

    def _record(self, direction: Literal["in", "out"], message: JSONRPCMessage) -> None:
        at = self.now()
        self.records.append(WireRecord(direction, at, message))
        if direction == "in" and isinstance(message, JSONRPCNotification):
            self.notifications.append(Notification(method=message.method, params=message.params, at=at))
