"""Servers reached over HTTP: Streamable HTTP, or the legacy SSE transport, with the case's headers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from http import HTTPStatus
from pathlib import Path
from typing import Any

import httpx2
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import JSONRPCRequest

from toolproof.mcp.errors import TransportFault
from toolproof.mcp.sdk_private import TransportStreams
from toolproof.mcp.spec import ConnectSpec
from toolproof.mcp.stdio import excerpt, read_message
from toolproof.model.result import FailureKind
from toolproof.model.server_config import Transport

STREAM_READ_TIMEOUT_S = 300.0
JSON_TYPE = "application/json"
STREAM_TYPE = "text/event-stream"
_AUTH_CHALLENGES = (HTTPStatus.UNAUTHORIZED, HTTPStatus.FORBIDDEN)


class HttpChannel:
    """The link to a server at a URL; `fault` is what was last wrong with the answer to a POST, if anything:
    an HTTP error status, or a reply that is not JSON-RPC (the SDK reports both as made-up error responses).
    """

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
            event_hooks={"response": [self._inspect]},
        )

    async def _inspect(self, response: httpx2.Response) -> None:
        """Note an error status of a POST, or a successful answer to a request that is not JSON-RPC."""
        request = response.request
        if request.method != "POST":
            return
        if self.spec.auth is not None and response.status_code in _AUTH_CHALLENGES:
            return  # the OAuth flow answers these, and says so itself if it cannot
        if response.status_code >= HTTPStatus.BAD_REQUEST:
            self.fault = TransportFault(
                FailureKind.TRANSPORT,
                f"HTTP {response.status_code} {response.reason_phrase} from POST {request.url}",
            )
            return
        content_type = response.headers.get("content-type", "")
        streamed = self.spec.transport is Transport.SSE or content_type.lower().startswith(STREAM_TYPE)
        if streamed or not _asks(request):
            return  # answers on an event stream are read as they come; a notification needs none
        body = await response.aread()
        if not content_type.lower().startswith(JSON_TYPE):
            problem = f"Content-Type {content_type or 'none'!r}, not {JSON_TYPE} or {STREAM_TYPE}"
        elif isinstance(reason := read_message(body), str):
            problem = reason
        else:
            return
        message = f"the reply to POST {request.url} is not JSON-RPC ({problem}): {excerpt(body)}"
        self.fault = TransportFault(FailureKind.PROTOCOL, message)

    @asynccontextmanager
    async def streams(self) -> AsyncIterator[TransportStreams]:
        """The (read, write) stream pair the SDK session runs on."""
        spec = self.spec
        auth = self.auth_flow()
        if spec.transport is Transport.SSE:
            async with sse_client(
                spec.url,
                timeout=spec.request_timeout,
                sse_read_timeout=STREAM_READ_TIMEOUT_S,
                httpx_client_factory=self.client,
                auth=auth,
            ) as streams:
                yield streams
            return
        async with (
            self.client(auth=auth) as client,
            streamable_http_client(
                spec.url, http_client=client, max_sse_event_size=spec.max_message_bytes
            ) as streams,
        ):
            yield streams

    def auth_flow(self) -> httpx2.Auth | None:
        """The OAuth flow the spec's `auth` asks for, if any."""
        spec = self.spec
        if spec.auth is None:
            return None
        from toolproof.mcp.auth import oauth_provider

        return oauth_provider(spec.auth, spec.url, Path(spec.token_cache) if spec.token_cache else None)


def _asks(request: httpx2.Request) -> bool:
    """Whether the POST carried a JSON-RPC request, one the server must answer."""
    return isinstance(read_message(request.content), JSONRPCRequest)
