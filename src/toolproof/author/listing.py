"""What a server offers: its tools, resources, resource templates and prompts, every page of each."""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio

from toolproof.mcp.client import MAX_PAGES, Session
from toolproof.mcp.errors import RequestFailed
from toolproof.mcp.session import open_session
from toolproof.model.result import Failure, FailureKind
from toolproof.model.server_config import ServerConfig, Transport
from toolproof.run.fixture import isolated_fixture
from toolproof.sources.connect import connect_spec
from toolproof.sources.options import ServerOptions


@dataclass(frozen=True)
class Listing:
    """The server's offer as listed; `capabilities` as it declared them at initialize."""

    tools: list[dict[str, Any]] = field(default_factory=list)
    resources: list[dict[str, Any]] = field(default_factory=list)
    templates: list[dict[str, Any]] = field(default_factory=list)
    prompts: list[dict[str, Any]] = field(default_factory=list)
    capabilities: dict[str, Any] = field(default_factory=dict)


def server_label(server: ServerConfig, options: ServerOptions) -> str:
    """How a server is named in snapshots and reports: its command line (the unfilled one, so that
    `{{fixture}}` stays stable), or its URL."""
    if server.transport is not Transport.STDIO:
        return server.url
    if options.server_override:
        return shlex.join(options.server_override)
    return shlex.join([server.command, *server.args])


async def _pages(
    fetch: Callable[[str | None], Awaitable[dict[str, Any]]], key: str, during: str
) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await fetch(cursor)
        items.extend(item for item in page.get(key) or [] if isinstance(item, dict))
        cursor = page.get("nextCursor")
        if not cursor:
            return items
    raise RequestFailed(Failure(kind=FailureKind.PROTOCOL, message=f"{during}: still paginating"))


async def read_listing(session: Session, *, everything: bool = True) -> Listing:
    """The tools (and, with `everything`, the resources, templates and prompts the server declares)."""
    capabilities = session.server_capabilities
    tools = await session.list_tools() if "tools" in capabilities else []
    resources: list[dict[str, Any]] = []
    templates: list[dict[str, Any]] = []
    prompts: list[dict[str, Any]] = []
    if everything and "resources" in capabilities:
        resources = await _pages(session.list_resources, "resources", "resources/list")
        templates = await _pages(session.list_resource_templates, "resourceTemplates", "resources/templates")
    if everything and "prompts" in capabilities:
        prompts = await _pages(session.list_prompts, "prompts", "prompts/list")
    return Listing(tools, resources, templates, prompts, capabilities)


async def list_server(server: ServerConfig, options: ServerOptions, *, everything: bool = True) -> Listing:
    """Start or reach the server (with its own copy of the fixture) and list what it offers.

    Raises RequestFailed when it cannot be reached, does not answer within the timeout, or fails a listing.
    """
    with isolated_fixture(options.fixture) as fixture:
        variables = {"fixture": str(fixture)} if fixture else {}
        spec = connect_spec(server, variables, options, request_timeout=options.timeout_s)
        try:
            with anyio.fail_after(options.timeout_s):
                async with open_session(spec) as session:
                    return await read_listing(session, everything=everything)
        except TimeoutError:
            message = f"listing the server timed out after {options.timeout_s:g}s"
            raise RequestFailed(Failure(kind=FailureKind.TIMEOUT, message=message)) from None
