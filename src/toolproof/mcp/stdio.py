"""Newline-delimited JSON-RPC over a server process's stdin and stdout: linear framing with a size cap.

A line that is not JSON-RPC is reported as a protocol error and skipped. When such a line looks like
the response to a request (its id can be read at its start or end), that request fails at once
rather than waiting for its timeout. A line over the cap ends the connection.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from mcp_types import (
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    RequestId,
    jsonrpc_message_adapter,
)
from pydantic import ValidationError

from toolproof.core.framing import LineBuffer
from toolproof.core.sanitize import clean
from toolproof.mcp.errors import PROTOCOL_VIOLATION, TransportFault
from toolproof.mcp.handoff import BUFFER, put
from toolproof.mcp.process import ServerProcess
from toolproof.mcp.sdk_private import TransportStreams
from toolproof.model.result import FailureKind

READ_CHUNK = 1 << 20
EXCERPT_CHARS = 200
_EXIT_WAIT_S = 1.0
_ID = rb'(-?\d+|"(?:[^"\\]|\\.)*")'
_ID_FIRST = re.compile(rb'\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*' + _ID)
_ID_LAST = re.compile(rb'[,{]\s*"id"\s*:\s*' + _ID + rb"\s*\}\s*\Z")


class ProtocolViolation(Exception):
    """Something the server wrote to stdout that is not a JSON-RPC message; `line` is the start of a line
    that is not JSON-RPC at all (a banner, a `print()`), None for a batch array."""

    def __init__(self, problem: str, line: str | None = None) -> None:
        super().__init__(problem)
        self.line = line


def excerpt(raw: bytes) -> str:
    text = raw[: EXCERPT_CHARS * 4].decode("utf-8", errors="replace")
    return text if len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS] + "..."


def stray_warning(lines: list[str]) -> str | None:
    """The warning for lines a server wrote to stdout that are not MCP messages, quoting the first (its
    terminal escapes stripped); None when there are none."""
    if not lines:
        return None
    first = clean(lines[0]).strip() or repr(lines[0])
    if len(lines) == 1:
        return f"the server wrote a line to stdout that is not an MCP message: {first}"
    return f"the server wrote {len(lines)} lines to stdout that are not MCP messages; the first: {first}"


def response_id(raw: bytes) -> RequestId | None:
    """The id of what looks like a JSON-RPC response whose id is its first or last member."""
    if b'"result"' not in raw and b'"error"' not in raw:
        return None
    match = _ID_FIRST.match(raw, 0, 4096) or _ID_LAST.search(raw, max(0, len(raw) - 4096))
    if match is None:
        return None
    token = match.group(1)
    return int(token) if token[:1] != b'"' else token[1:-1].decode("utf-8", errors="replace")


def read_message(raw: bytes) -> JSONRPCMessage | str:
    """The JSON-RPC message in `raw`, or why it is not one (e.g. "Invalid JSON: ...")."""
    try:
        return jsonrpc_message_adapter.validate_json(raw, by_name=False)
    except ValidationError as error:
        first = error.errors()[0]
        return first["msg"] if first["type"] == "json_invalid" else "not a JSON-RPC message"


def _batch_ids(raw: bytes) -> list[RequestId] | None:
    """The ids of the responses in a JSON-RPC batch array; None when `raw` is not a JSON array."""
    if not raw.lstrip().startswith(b"["):
        return None
    try:
        batch = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(batch, list):
        return None
    return [
        item["id"]
        for item in batch
        if isinstance(item, dict)
        and ("result" in item or "error" in item)
        and isinstance(item.get("id"), int | str)
        and not isinstance(item.get("id"), bool)
    ]


def _unreadable_reply(request_id: RequestId, message: str, reason: str) -> SessionMessage:
    error_data = ErrorData(code=PARSE_ERROR, message=message, data={PROTOCOL_VIOLATION: reason})
    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=request_id, error=error_data))


def parse_line(raw: bytes) -> list[SessionMessage | Exception]:
    """The message on one line; for an unreadable line, the violation and maybe a failure for its id.

    A JSON-RPC batch array (which MCP does not allow) fails every request it answers, naming the batch.
    """
    reason = read_message(raw)
    if not isinstance(reason, str):
        return [SessionMessage(reason)]
    batch_ids = _batch_ids(raw)
    if batch_ids is not None:
        reason = "a JSON-RPC batch array, which MCP does not allow"
        problem = f"stdout line is {reason}: {excerpt(raw)}"
        message = f"the server answered in {reason}: {excerpt(raw)}"
        return [ProtocolViolation(problem), *(_unreadable_reply(id_, message, reason) for id_ in batch_ids)]
    problem = f"stdout line is {reason}: {excerpt(raw)}"
    items: list[SessionMessage | Exception] = [ProtocolViolation(problem, excerpt(raw))]
    request_id = response_id(raw)
    if request_id is not None:
        message = f"the response could not be read ({reason}): {excerpt(raw)}"
        items.append(_unreadable_reply(request_id, message, reason))
    return items


class StdioChannel:
    """The JSON-RPC link to a server process; `fault` says why it ended, once it has."""

    def __init__(self, server: ServerProcess, max_message_bytes: int) -> None:
        self.server = server
        self.limit = max_message_bytes
        self.fault: TransportFault | None = None

    @asynccontextmanager
    async def streams(self) -> AsyncIterator[TransportStreams]:
        """The (read, write) stream pair the SDK session runs on."""
        stdin, stdout = self.server.process.stdin, self.server.process.stdout
        assert stdin is not None and stdout is not None
        inbound, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](BUFFER)
        write_stream, outbound = anyio.create_memory_object_stream[SessionMessage](0)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(self._read, stdout, inbound)
            tasks.start_soon(self._write, stdin, outbound)
            try:
                yield read_stream, write_stream
            finally:
                tasks.cancel_scope.cancel()
                read_stream.close()
                write_stream.close()

    async def _read(
        self, stdout: ByteReceiveStream, inbound: MemoryObjectSendStream[SessionMessage | Exception]
    ) -> None:
        """Deliver the server's messages until its stdout ends, a message is over the cap, or the server
        process exits (a child of it may hold its stdout open); then close `inbound`, with `fault` set."""
        async with inbound:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(self._pump, stdout, inbound, tasks.cancel_scope)
                tasks.start_soon(self._until_exit, tasks.cancel_scope)
            if self.fault is None:
                ending = f"the server {self.server.exit_description()}"
                self.fault = TransportFault(FailureKind.TRANSPORT, ending)

    async def _until_exit(self, reading: anyio.CancelScope) -> None:
        """Stop `reading` once the server process has exited and its last output has had time to arrive."""
        await self.server.exited()
        reading.cancel()

    async def _pump(
        self,
        stdout: ByteReceiveStream,
        inbound: MemoryObjectSendStream[SessionMessage | Exception],
        reading: anyio.CancelScope,
    ) -> None:
        """Pass lines on until stdout ends or a line is over the cap; set `fault` and stop `reading`."""
        buffer = LineBuffer()
        try:
            while await self._deliver(buffer.feed(await stdout.receive(READ_CHUNK)), inbound):
                if buffer.pending > self.limit:
                    break
            self.fault = TransportFault(
                FailureKind.PROTOCOL,
                f"the server sent a message larger than the {_size(self.limit)} limit (max_message_bytes)",
            )
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            exited = await self.server.settle(_EXIT_WAIT_S)
            ending = self.server.exit_description() if exited else "closed its stdout"
            self.fault = TransportFault(FailureKind.TRANSPORT, f"the server {ending}")
        reading.cancel()

    async def _deliver(
        self, lines: list[bytes], inbound: MemoryObjectSendStream[SessionMessage | Exception]
    ) -> bool:
        """Pass complete lines on; False at a line over the size limit."""
        for line in lines:
            if len(line) > self.limit:
                return False
            if line.strip():
                for item in parse_line(line):
                    await put(inbound, item)
        return True

    async def _write(
        self, stdin: ByteSendStream, outbound: MemoryObjectReceiveStream[SessionMessage]
    ) -> None:
        async with outbound:
            try:
                async for message in outbound:
                    payload = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await stdin.send(payload.encode() + b"\n")
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                return


def _size(limit: int) -> str:
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if limit >= scale and limit % scale == 0:
            return f"{limit // scale} {unit}"
    return f"{limit} bytes"
