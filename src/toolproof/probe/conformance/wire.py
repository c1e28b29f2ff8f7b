"""A raw JSON-RPC link to a server, for checks that must send what a well-behaved client never would: an
unknown protocol version, a method that does not exist, malformed params, ids of every type.

In the 2026-07-28 era (`Link.era`) every request is stamped as that era's client stamps it: the `_meta`
envelope (protocol version, client capabilities, client info) and, over HTTP, the `MCP-Protocol-Version`,
`Mcp-Method` and `Mcp-Name` headers; a check that means to send a broken envelope or broken headers says
so per request."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.inbound import (
    MCP_METHOD_HEADER,
    MCP_NAME_HEADER,
    MCP_PROTOCOL_VERSION_HEADER,
    NAME_BEARING_METHODS,
    encode_header_value,
    find_invalid_x_mcp_header,
    mcp_param_headers,
    x_mcp_header_map,
)
from mcp.shared.message import ClientMessageMetadata, SessionMessage

from toolproof.mcp.channels import channel_for, start_server
from toolproof.mcp.http import HttpChannel
from toolproof.mcp.process import ServerProcess
from toolproof.mcp.sdk_private import TransportStreams
from toolproof.mcp.spec import HANDSHAKE_ERA, ConnectSpec
from toolproof.mcp.stdio import ProtocolViolation, StdioChannel
from toolproof.model.server_config import Transport

Message = dict[str, Any]
MODERN_ERA = "2026-07-28"
CLIENT_INFO = {"name": "toolproof-conformance", "version": "1"}


def envelope(era: str, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
    """The `_meta` keys a 2026-07-28 client puts on every request."""
    return {
        types.PROTOCOL_VERSION_META_KEY: era,
        types.CLIENT_CAPABILITIES_META_KEY: capabilities or {},
        types.CLIENT_INFO_META_KEY: CLIENT_INFO,
    }


def routing_headers(era: str, method: str, params: dict[str, Any] | None) -> dict[str, str]:
    """The HTTP headers a 2026-07-28 client sends with a request (SEP-2243): version, method, and the name."""
    headers = {MCP_PROTOCOL_VERSION_HEADER: era, MCP_METHOD_HEADER: method}
    key = NAME_BEARING_METHODS.get(method)
    if key is not None and isinstance(name := (params or {}).get(key), str):
        headers[MCP_NAME_HEADER] = encode_header_value(name)
    return headers


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
    era: str = HANDSHAKE_ERA
    seen: list[Message] = field(default_factory=list)
    stray: list[str] = field(default_factory=list)  # lines on stdout that are not JSON-RPC, as written
    abandoned: set[int | str] = field(
        default_factory=set
    )  # ids of requests given up on: a late answer is kept
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    # by tool name, the arguments its tools/list entry says go in Mcp-Param-* headers (x-mcp-header)
    mirrored: dict[str, dict[tuple[str, ...], str]] = field(default_factory=dict)

    @property
    def modern(self) -> bool:
        return self.era != HANDSHAKE_ERA

    async def send(self, message: Message, headers: dict[str, str] | None = None) -> None:
        """Send `message` as built; `headers` go with it over HTTP."""
        metadata = ClientMessageMetadata(headers=headers) if headers is not None else None
        sent = types.jsonrpc_message_adapter.validate_python(message)
        await self.write.send(SessionMessage(sent, metadata=metadata))

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
        stamp: bool = True,
        headers: dict[str, str] | None = None,
        timeout: float | None = None,
    ) -> Message:
        """The server's response (result or error) to one request, as sent, within `timeout` (default: the
        link's). In the 2026-07-28 era the request is stamped (`_meta` envelope merged under the params' own
        `_meta`, routing headers) unless `stamp` is False; `headers` replace the routing headers."""
        ident = next(self._ids) if request_id is None else request_id
        message: Message = {"jsonrpc": "2.0", "id": ident, "method": method}
        if self.modern and stamp:
            params = {**(params or {})}
            params["_meta"] = {**envelope(self.era), **(params.get("_meta") or {})}
        if params is not None:
            message["params"] = params
        if self.modern and headers is None:
            headers = routing_headers(self.era, method, params)
            if method == "tools/call" and isinstance(arguments := (params or {}).get("arguments"), dict):
                headers |= mcp_param_headers(
                    self.mirrored.get(str((params or {}).get("name")), {}), arguments
                )
        await self.send(message, headers)
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
                    if method == "tools/list":
                        self._mirror(wire)
                    return wire
                self.seen.append(wire)
                if "id" in wire and "method" in wire:
                    await self._answer(wire)
        raise NoAnswer(f"{method}: no answer within {limit:g} s")

    async def abandon(self, request_id: int | str, reason: str) -> None:
        """Cancel a request that got no answer in time; an answer that still comes is kept in `seen`."""
        self.abandoned.add(request_id)
        await self.notify("notifications/cancelled", {"requestId": request_id, "reason": reason})

    def _mirror(self, answer: Message) -> None:
        """Keep what the listed tools mirror in headers (2026-07-28, SEP-2243), as a client must."""
        result = answer.get("result")
        for tool in (result.get("tools") if isinstance(result, dict) else None) or []:
            schema = tool.get("inputSchema") if isinstance(tool, dict) else None
            if isinstance(schema, dict) and find_invalid_x_mcp_header(schema) is None:
                self.mirrored[str(tool.get("name"))] = x_mcp_header_map(schema)

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
        await self.until(lambda _: False, seconds)

    async def until(self, wanted: Callable[[Message], bool], seconds: float) -> Message | None:
        """Take in what arrives (kept in `seen`; a server's request answered) until a message `wanted` comes,
        for at most `seconds`: that message, or None."""
        with anyio.move_on_after(seconds):
            while True:
                arrived = await self.read.receive()
                self._note(arrived)
                if not isinstance(arrived, Exception):
                    seen: Message = arrived.message.model_dump(by_alias=True, mode="json", exclude_none=True)
                    self.seen.append(seen)
                    if "id" in seen and "method" in seen:
                        await self._answer(seen)
                    if wanted(seen):
                        return seen
        return None


@asynccontextmanager
async def open_link(spec: ConnectSpec, era: str = HANDSHAKE_ERA) -> AsyncIterator[Link]:
    """Start or reach the server and yield a link in `era` on which nothing has been sent yet."""
    async with AsyncExitStack() as stack:
        server: ServerProcess | None = None
        if spec.transport is Transport.STDIO:
            server = await stack.enter_async_context(start_server(spec))
        channel = channel_for(spec, server)
        streams: TransportStreams = await stack.enter_async_context(channel.streams())
        yield Link(streams[0], streams[1], spec.request_timeout, channel, era)
