"""The client's answers to the server's own requests (sampling, elicitation, roots), from the mocks."""

from __future__ import annotations

import os

from mcp.client.session import ClientRequestContext, ElicitationFnT, ListRootsFnT, SamplingFnT
from mcp_types import (
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequestParams,
    ElicitResult,
    ListRootsResult,
    Root,
    TextContent,
)

from toolproof.model.server_case import ElicitationMock, SamplingMock


def root(entry: str) -> Root:
    """A root from a path (made absolute) or a file:// URI, named by its last path segment."""
    uri = entry if entry.startswith("file://") else "file://" + os.path.abspath(entry)
    path = uri.removeprefix("file://").rstrip("/")
    return Root(uri=uri, name=os.path.basename(path) or path or "/")


def sampling_callback(mock: SamplingMock) -> SamplingFnT:
    """Answers every sampling/createMessage with the mock's text, model and stop reason."""

    async def answer(
        context: ClientRequestContext, params: CreateMessageRequestParams
    ) -> CreateMessageResult:
        return CreateMessageResult(
            role="assistant",
            content=TextContent(type="text", text=mock.text),
            model=mock.model,
            stop_reason=mock.stop_reason,
        )

    return answer


def elicitation_callback(mock: ElicitationMock) -> ElicitationFnT:
    """Answers every elicitation/create with the mock's action (and, to accept, its content)."""

    async def answer(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        if mock.action == "accept":
            return ElicitResult(action="accept", content=mock.response_content())
        return ElicitResult(action=mock.action)

    return answer


def roots_callback(entries: tuple[str, ...]) -> ListRootsFnT:
    """Answers roots/list with the configured roots."""
    roots = [root(entry) for entry in entries]

    async def answer(context: ClientRequestContext) -> ListRootsResult:
        return ListRootsResult(roots=roots)

    return answer
