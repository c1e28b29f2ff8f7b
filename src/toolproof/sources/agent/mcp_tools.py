"""The live tool host: the tools of a scenario's MCP servers, offered to the model as one catalog.

Every server is opened (any transport) when the host opens and closed, with its process, when it closes.
Tools are listed once. A tool name offered by more than one server is offered as `server__tool` for each of
them (names that do not clash keep their plain name), so the model can tell them apart and checks name them
the way the model called them. A failed call (a result with `isError`, a JSON-RPC error, a dead connection,
an unknown tool name) comes back as an error outcome for the model to read; it never ends the run.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolproof.mcp.errors import RequestFailed
from toolproof.mcp.session import open_session
from toolproof.mcp.spec import ConnectSpec
from toolproof.providers.base import ToolSpec
from toolproof.sources.agent.host import ToolOutcome

if TYPE_CHECKING:
    from toolproof.mcp.client import Session

SEPARATOR = "__"


class ToolNameClash(ValueError):
    """Two tools would be offered under the same name even after namespacing."""


@dataclass(frozen=True)
class Route:
    """Where an offered tool lives: its server and its name there."""

    server: str
    tool: str


def catalog(
    listed: Mapping[str, Sequence[Mapping[str, Any]]],
) -> tuple[tuple[ToolSpec, ...], dict[str, Route]]:
    """The specs offered to the model and the route of each offered name, from each server's tools/list.

    Raises ToolNameClash when namespacing still leaves two tools with one name (a server's own tool is
    literally called `other__name`).
    """
    counts = Counter(str(tool.get("name", "")) for tools in listed.values() for tool in tools)
    specs: list[ToolSpec] = []
    routes: dict[str, Route] = {}
    for server, tools in listed.items():
        for tool in tools:
            name = str(tool.get("name", ""))
            offered = f"{server}{SEPARATOR}{name}" if counts[name] > 1 else name
            if offered in routes:
                other = routes[offered]
                raise ToolNameClash(
                    f"tool name {offered!r} is offered twice: by server {other.server!r} (as {other.tool!r}) "
                    f"and by server {server!r} (as {name!r}); rename one of the servers"
                )
            routes[offered] = Route(server, name)
            schema = tool.get("inputSchema")
            specs.append(
                ToolSpec(
                    name=offered,
                    description=str(tool.get("description") or ""),
                    input_schema=dict(schema) if isinstance(schema, Mapping) else {"type": "object"},
                )
            )
    return tuple(specs), routes


def outcome_text(result: Mapping[str, Any]) -> str:
    """What the model reads of a tools/call result: its text blocks, other blocks named, or the structured
    content as JSON when there is no text."""
    parts: list[str] = []
    for block in result.get("content") or []:
        kind = block.get("type") if isinstance(block, Mapping) else None
        if kind == "text":
            parts.append(str(block.get("text", "")))
        elif kind in ("image", "audio"):
            parts.append(f"[{kind}: {block.get('mimeType', 'unknown type')}]")
        elif kind == "resource_link":
            parts.append(f"[resource link: {block.get('uri', '')}]")
        elif kind == "resource":
            resource = block.get("resource") or {}
            parts.append(str(resource.get("text") or f"[resource: {resource.get('uri', '')}]"))
    if not parts and result.get("structuredContent") is not None:
        return json.dumps(result["structuredContent"], ensure_ascii=False)
    return "\n".join(parts)


class McpToolHost:
    """A ToolHost over open sessions; see the module docstring."""

    def __init__(
        self, sessions: Mapping[str, Session], specs: tuple[ToolSpec, ...], routes: dict[str, Route]
    ) -> None:
        self._sessions = sessions
        self._specs = specs
        self._routes = routes

    @property
    def stderr(self) -> str:
        """The stderr tails of the stdio servers, each headed by its server's name when there are several."""
        tails = [(name, session.stderr) for name, session in self._sessions.items() if session.stderr]
        if len(tails) == 1:
            return tails[0][1]
        return "\n".join(f"[{name}]\n{tail}" for name, tail in tails)

    async def list_tools(self) -> tuple[ToolSpec, ...]:
        return self._specs

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        route = self._routes.get(name)
        if route is None:
            known = ", ".join(self._routes) or "none"
            return ToolOutcome(text=f"unknown tool {name!r} (tools: {known})", is_error=True)
        started = time.perf_counter()
        try:
            result = await self._sessions[route.server].call_tool(route.tool, arguments)
        except RequestFailed as error:
            return ToolOutcome(
                text=error.failure.message,
                content={"error": error.failure.message, "kind": error.failure.kind.value},
                is_error=True,
                duration_ms=_since(started),
            )
        return ToolOutcome(
            text=outcome_text(result),
            content=result,
            is_error=result.get("isError") is True,
            duration_ms=_since(started),
        )


def _since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


@asynccontextmanager
async def open_tool_host(servers: Mapping[str, ConnectSpec]) -> AsyncIterator[McpToolHost]:
    """Open every server, list its tools once, and yield the host; on exit every server is closed.

    Raises RequestFailed when a server cannot be reached, initialized or listed, and ToolNameClash (see
    `catalog`).
    """
    async with AsyncExitStack() as stack:
        sessions: dict[str, Session] = {}
        listed: dict[str, list[dict[str, Any]]] = {}
        for name, spec in servers.items():
            try:
                sessions[name] = await stack.enter_async_context(open_session(spec))
                listed[name] = await sessions[name].list_tools()
            except RequestFailed as error:
                failure = error.failure
                named = failure.model_copy(update={"message": f"server {name!r}: {failure.message}"})
                raise RequestFailed(named, error.stderr) from error
        specs, routes = catalog(listed)
        yield McpToolHost(sessions, specs, routes)
