"""Reach one server and gather what it tells the model: tools, instructions, prompts, resources, the
answers of benign calls, and the tool list again when it said `notifications/tools/list_changed`."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import anyio

from toolproof.mcp.errors import RequestFailed
from toolproof.probe.arguments import tool_arguments
from toolproof.probe.connection import Prober
from toolproof.probe.scan.listing import Listing
from toolproof.probe.tools import Tool, input_schema, is_destructive, tool_name
from toolproof.probe.verdicts import result_text

if TYPE_CHECKING:
    from toolproof.mcp.client import Session
    from toolproof.mcp.spec import ConnectSpec

LIST_CHANGED = "notifications/tools/list_changed"
MAX_PAGES = 20
NOTIFICATION_GRACE_S = 0.2
"""How long after the last benign call a list_changed notification may still arrive."""


def spec_name(spec: ConnectSpec) -> str:
    """The server as its --server named it: the URL or the command line."""
    return spec.url or shlex.join([spec.command, *spec.args])


def benign(tool: Tool) -> bool:
    """A tool safe to call: not annotated destructive, and read-only or needing no argument."""
    hints = tool.get("annotations")
    read_only = isinstance(hints, Mapping) and hints.get("readOnlyHint") is True
    return not is_destructive(tool) and (read_only or not input_schema(tool).get("required"))


async def gather(spec: ConnectSpec, *, call: bool) -> Listing:
    """What the server tells the model; raises `RequestFailed` when it cannot be reached or listed."""
    async with Prober(spec) as prober:
        session = await prober.session()
        name = str(session.server_info.get("name") or "") or spec_name(spec)
        instructions = _instructions(session)
        tools = await session.list_tools()
        prompts = await _listed(session, "prompts/list", "prompts")
        resources = await _listed(session, "resources/list", "resources")
        resources += await _listed(session, "resources/templates/list", "resourceTemplates")
        responses: dict[str, str] = {}
        for tool in tools if call else ():
            if benign(tool):
                outcome = await prober.call(tool_name(tool), tool_arguments(input_schema(tool)))
                if outcome.result is not None:
                    responses[tool_name(tool)] = result_text(outcome.result)
        relisted = await _relisted(await prober.session(), waited=bool(responses))
    return Listing(name, tools, instructions, prompts, resources, relisted, responses)


async def _relisted(session: Session, *, waited: bool) -> list[dict[str, Any]] | None:
    if waited:
        await anyio.sleep(NOTIFICATION_GRACE_S)
    if not any(note.method == LIST_CHANGED for note in session.notifications):
        return None
    return await session.list_tools()


def _instructions(session: Session) -> str:
    """The `instructions` of the initialize result (the one answer carrying `serverInfo`)."""
    for record in session.wire:
        result = getattr(record.message, "result", None)
        if record.direction == "in" and isinstance(result, dict) and "serverInfo" in result:
            text = result.get("instructions")
            return text if isinstance(text, str) else ""
    return ""


async def _listed(session: Session, method: str, key: str) -> list[dict[str, Any]]:
    """Every item of a paginated list the server offers ([] when it offers none or refuses)."""
    capability = method.split("/")[0]
    if capability not in session.server_capabilities:
        return []
    items: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        try:
            page = await session.request(method, {"cursor": cursor} if cursor else None)
        except RequestFailed:
            return items
        items += [item for item in page.get(key) or [] if isinstance(item, dict)]
        cursor = page.get("nextCursor")
        if not cursor:
            break
    return items
