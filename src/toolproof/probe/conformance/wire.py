"""A raw JSON-RPC link to a server, for checks that must send what a well-behaved client never would: an
unknown protocol version, a method that does not exist, malformed params, ids of every type."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage

from toolproof.mcp.http import HttpChannel
from toolproof.mcp.process import run_server
from toolproof.mcp.sdk_private import TransportStreams
from toolproof.mcp.spec import ConnectSpec
from toolproof.mcp.stdio import ProtocolViolation, StdioChannel
from toolproof.model.server_config import Transport

Message = dict[str, Any]
# The results the link answers a server's requests with (the probe declares sampling and elicitation).
ANSWERS: dict[str, Message] = {
    "ping": {},
    "sampling/createMessage": {
        "role": "assistant",
        "content": {"type": "text", "text": "toolproof conformance does not sample"},
        "model": "toolproof-conformance",
    },
    "elicitation/create": {"action": "decline"},
}


class NoAnswer(Exception):
    """The server did not answer a request in time, or the link closed first."""


@dataclass
class Link:
    """Send requests and notifications as built; every other message that arrives is kept in `seen`, in order,
    as sent (a server request is answered: ping with {}, sampling with a fixed reply, elicitation declined,
    anything else with -32601)."""

    read: Any
    write: Any
    timeout: float
    channel: StdioChannel | HttpChannel
    seen: list[Message] = field(default_factory=list)
    stray: list[str] = field(default_factory=list)  # lines on stdout that are not JSON-RPC, as written
    abandoned: set[int | str] = field(
        default_factory=set
    )  # ids of requests given up on: a late answer is kept
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    async def send(self, message: Message) -> None:
        await self.write.send(SessionMessage(types.jsonrpc_message_adapter.validate_python(message)))

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: Message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        await self.send(message)

    async def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        request_id: int | str | None = None,
        timeout: float | None = None,
    ) -> Message:
        """The server's response (result or error) to one request, as sent, within `timeout` (default: the
        link's)."""
        ident = next(self._ids) if request_id is None else request_id
        message: Message = {"jsonrpc": "2.0", "id": ident, "method": method}
        if params is not None:
            message["params"] = params
        await self.send(message)
        limit = self.timeout if timeout is None else timeout
        with anyio.move_on_after(limit):
            while True:
                try:
                    arrived = await self.read.receive()
                except (anyio.EndOfStream, anyio.ClosedResourceError) as closed:
                    raise NoAnswer(f"{method}: the connection closed before the answer") from closed
                if isinstance(arrived, Exception):
                    self._note(arrived)
                    continue
                wire: Message = arrived.message.model_dump(by_alias=True, mode="json", exclude_none=True)
                if "method" not in wire and wire.get("id") in self.abandoned:
                    self.seen.append(wire)
                elif "method" not in wire:  # requests go one at a time: this answers ours (the id is checked)
                    return wire
                self.seen.append(wire)
                if "id" in wire and "method" in wire:
                    await self._answer(wire)
        raise NoAnswer(f"{method}: no answer within {limit:g} s")

    async def abandon(self, request_id: int | str, reason: str) -> None:
        """Cancel a request that got no answer in time; an answer that still comes is kept in `seen`."""
        self.abandoned.add(request_id)
        await self.notify("notifications/cancelled", {"requestId": request_id, "reason": reason})

    def _note(self, arrived: object) -> None:
        if isinstance(arrived, ProtocolViolation) and arrived.line is not None:
            self.stray.append(arrived.line)

    async def _answer(self, asked: Message) -> None:
        if asked["method"] in ANSWERS:
            await self.send({"jsonrpc": "2.0", "id": asked["id"], "result": ANSWERS[asked["method"]]})
            return
        error = {"code": types.METHOD_NOT_FOUND, "message": "not offered by toolproof conformance"}
        await self.send({"jsonrpc": "2.0", "id": asked["id"], "error": error})

    async def settle(self, seconds: float) -> None:
        """Take in whatever arrives for `seconds`."""
        with anyio.move_on_after(seconds):
            while True:
                arrived = await self.read.receive()
                self._note(arrived)
                if not isinstance(arrived, Exception):
                    seen: Message = arrived.message.model_dump(by_alias=True, mode="json", exclude_none=True)
                    self.seen.append(seen)
                    if "id" in seen and "method" in seen:
                        await self._answer(seen)


@asynccontextmanager
async def open_link(spec: ConnectSpec) -> AsyncIterator[Link]:
    """Start or reach the server and yield a link on which nothing has been sent yet."""
    async with AsyncExitStack() as stack:
        channel: StdioChannel | HttpChannel
        if spec.transport is Transport.STDIO:
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
            channel = StdioChannel(server, spec.max_message_bytes)
        else:
            channel = HttpChannel(spec)
        streams: TransportStreams = await stack.enter_async_context(channel.streams())
        yield Link(streams[0], streams[1], spec.request_timeout, channel)
