"""Servers reached over HTTP: Streamable HTTP, or the legacy SSE transport, with the case's headers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp.client._transport import TransportStreams
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

from toolproof.mcp.errors import TransportFault
from toolproof.mcp.spec import ConnectSpec
from toolproof.model.result import FailureKind
from toolproof.model.suite import Transport

STREAM_READ_TIMEOUT_S = 300.0


class HttpChannel:
    """The link to a server at a URL; `fault` is the last HTTP error status a request got, if any."""

    def __init__(self, spec: ConnectSpec) -> None:
        self.spec = spec
        self.fault: TransportFault | None = None

    def client(
        self, headers: dict[str, str] | None = None, timeout: httpx2.Timeout | None = None, auth: Any = None
    ) -> httpx2.AsyncClient:
        """An HTTP client with the spec's headers and timeouts that notes error statuses of POSTs."""
        return httpx2.AsyncClient(
            headers={**self.spec.headers, **(headers or {})},
            timeout=timeout or httpx2.Timeout(self.spec.request_timeout, read=STREAM_READ_TIMEOUT_S),
            auth=auth,
            event_hooks={"response": [self._note_status]},
        )

    async def _note_status(self, response: httpx2.Response) -> None:
        request = response.request
        if response.status_code >= 400 and request.method == "POST":
            self.fault = TransportFault(
                FailureKind.TRANSPORT,
                f"HTTP {response.status_code} {response.reason_phrase} from POST {request.url}",
            )

    @asynccontextmanager
    async def streams(self) -> AsyncIterator[TransportStreams]:
        """The (read, write) stream pair the SDK session runs on."""
        spec = self.spec
        if spec.transport is Transport.SSE:
            async with sse_client(
                spec.url,
                timeout=spec.request_timeout,
                sse_read_timeout=STREAM_READ_TIMEOUT_S,
                httpx_client_factory=self.client,
            ) as streams:
                yield streams
            return
        async with (
            self.client() as client,
            streamable_http_client(
                spec.url, http_client=client, max_sse_event_size=spec.max_message_bytes
            ) as streams,
        ):
            yield streams
