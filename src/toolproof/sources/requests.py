"""Make a block's request on an open session and record what came back as an Observation."""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio

from toolproof.core.template import fill
from toolproof.mcp.errors import RequestFailed
from toolproof.model.observation import LogMessage, Notification, Observation
from toolproof.model.result import Failure, FailureKind
from toolproof.model.server_case import (
    AssertBlock,
    Block,
    CompletionBlock,
    LoggingBlock,
    NotificationsBlock,
    PromptsBlock,
    ResourcesBlock,
    SamplingBlock,
    SkillsBlock,
    ToolsBlock,
)
from toolproof.sources.options import ServerOptions
from toolproof.sources.waits import longest_wait_s

if TYPE_CHECKING:
    from toolproof.mcp.client import Session

RESOURCE_UPDATED = "notifications/resources/updated"
DECLARATION_WAIT_S = 2.0
SETTLE_WAIT_S = 1.0


@dataclass(frozen=True)
class Straggling:
    """How a block waits once its request is answered: for as long as `longest_wait_s` reads in `options`, and
    `answered`, told before any such wait, so the case's slot goes to the next case while this one waits."""

    options: ServerOptions
    answered: Callable[[], None]


def content_text(blocks: list[dict[str, Any]]) -> str:
    """The text content blocks of a result joined with newlines; other blocks are left out."""
    return "\n".join(str(block.get("text", "")) for block in blocks if block.get("type") == "text")


def compact_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _tool_observation(
    result: dict[str, Any], notes: list[Notification], started: float, tool: dict[str, Any] | None = None
) -> Observation:
    content = list(result.get("content") or [])
    return Observation(
        text=content_text(content),
        is_error=bool(result.get("isError", False)),
        content=content,
        structured=result.get("structuredContent"),
        result=result,
        notifications=notes,
        progress_count=sum(1 for note in notes if note.method == "notifications/progress"),
        duration_s=time.perf_counter() - started,
        tool=tool,
    )


async def _declaration(session: Session, name: str) -> dict[str, Any] | None:
    """The tool as tools/list declares it, for the outputSchema check; None when it is not listed, or the
    listing fails or takes longer than DECLARATION_WAIT_S (the case tests the call, not the listing)."""
    with anyio.move_on_after(DECLARATION_WAIT_S):
        try:
            return await session.tool_declaration(name)
        except RequestFailed:
            return None
    return None


async def _declared_call(
    session: Session, name: str, arguments: dict[str, Any], progress: bool, structured: bool = False
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """`tools/call`, then the tool's declaration for the outputSchema check (`_checked_declaration`)."""
    result = await session.call_tool(name, arguments, progress=progress)
    return result, await _checked_declaration(session, name, result, structured)


async def _checked_declaration(
    session: Session, name: str, result: dict[str, Any], structured: bool
) -> dict[str, Any] | None:
    """The tool's declaration for the outputSchema check, only when the result has `structuredContent` or
    the case expects `structured` output: tools/list is never sent for a plain call."""
    if result.get("structuredContent") is None and not structured:
        return None
    return await _declaration(session, name)


def _expects_structured(block: AssertBlock | SamplingBlock) -> bool:
    expect = block.expect if isinstance(block, AssertBlock) else None
    return expect is not None and (expect.structured is not None or expect.structured_schema is not None)


async def _since(session: Session, mark: int, after: Straggling, block: Block) -> list[Notification]:
    """Notifications that arrived after `mark`, once the block waited for stragglers (`longest_wait_s`)."""
    seconds = longest_wait_s(block, after.options)
    if seconds > 0:
        after.answered()
        await anyio.sleep(seconds)
    return list(session.notifications[mark:])


async def observe_tool(
    block: AssertBlock | SamplingBlock, session: Session, variables: Mapping[str, str], after: Straggling
) -> Observation:
    """`tools/call`: the default block, and assert_sampling (whose mock lives in the connection). A call
    answered with a task is followed as the block's `task:` options say, and observed with its record."""
    progress = isinstance(block, AssertBlock) and block.capture_progress
    options = block.task if isinstance(block, AssertBlock) else None
    mark, started = session.mark(), time.perf_counter()
    arguments = fill(block.args, variables)
    result, task = await session.call_tool_traced(block.tool, arguments, progress=progress, task=options)
    tool = await _checked_declaration(session, block.tool, result, _expects_structured(block))
    observation = _tool_observation(result, await _since(session, mark, after, block), started, tool)
    return observation.model_copy(update={"task": task})


async def _settled_mark(session: Session) -> int:
    """The notification mark after one ping round trip: what the server sent before it (a `list_changed`
    right after initialization) arrives first, since a server's messages keep their order, and is left out.
    A server that fails or does not answer the ping within SETTLE_WAIT_S is marked as it is."""
    with anyio.move_on_after(SETTLE_WAIT_S), suppress(RequestFailed):
        await session.ping()
    return session.mark()


async def observe_notifications(
    block: NotificationsBlock, session: Session, variables: Mapping[str, str], after: Straggling
) -> Observation:
    """Every notification from the moment the call is sent until the grace period after its result (in the
    2026-07-28 era, list changes over a `subscriptions/listen` stream opened first)."""
    await session.listen_for_changes()
    mark, started = await _settled_mark(session), time.perf_counter()
    result, tool = await _declared_call(session, block.tool, fill(block.args, variables), True)
    return _tool_observation(result, await _since(session, mark, after, block), started, tool)


async def observe_logging(
    block: LoggingBlock, session: Session, variables: Mapping[str, str], after: Straggling
) -> Observation:
    """`logging/setLevel`, then the optional tool call; log messages from then until the grace period."""
    started = time.perf_counter()
    await session.set_log_level(block.set_level)
    mark = session.mark()
    result: dict[str, Any] = {}
    tool = None
    if block.tool:
        result, tool = await _declared_call(session, block.tool, fill(block.args, variables), False)
    notes = await _since(session, mark, after, block)
    logs = [
        LogMessage(level=str(p.get("level", "")), data=p.get("data"), logger=p.get("logger"))
        for p in (note.params for note in notes if note.method == "notifications/message")
        if isinstance(p, dict)
    ]
    return _tool_observation(result, notes, started, tool).model_copy(update={"logs": logs})


async def observe_resources(
    block: ResourcesBlock, session: Session, variables: Mapping[str, str], after: Straggling
) -> Observation:
    """resources/list or resources/read, with an optional subscribe/unsubscribe around it (in the 2026-07-28
    era, a `subscriptions/listen` stream for the resource)."""
    if missing := missing_request(block):
        raise missing  # before subscribing, as mcp-assert checks it
    started = time.perf_counter()
    mark = session.mark()
    if block.subscribe:
        await session.subscribe(fill(block.subscribe, variables))
    if block.list_ is not None:  # mcp-assert lists when a block has both
        result = await session.list_resources(block.list_.cursor)
        text = compact_json(result)
    else:
        result = await session.read_resource(fill(block.read or "", variables))  # read is set: see above
        text = "\n".join(_resource_text(item) for item in result.get("contents") or [])
    if block.unsubscribe:
        await session.unsubscribe(fill(block.unsubscribe, variables))
    if block.expect_notification is True:  # ends with the update: `longest_wait_s` is its limit
        await _wait_for(session, mark, RESOURCE_UPDATED, longest_wait_s(block, after.options), after)
        notes = list(session.notifications[mark:])
    else:
        notes = await _since(session, mark, after, block)
    return Observation(
        text=text, result=result, notifications=notes, duration_s=time.perf_counter() - started
    )


def missing_request(block: Block) -> RequestFailed | None:
    """The configuration failure of a resources or prompts block that names no request (a failed case, as in
    mcp-assert, not a load error): known before its server starts. None for every other block."""
    if isinstance(block, ResourcesBlock) and block.list_ is None and block.read is None:
        return _incomplete("assert_resources", "read")
    if isinstance(block, PromptsBlock) and block.list_ is None and block.get is None:
        return _incomplete("assert_prompts", "get")
    return None


def _incomplete(block: str, other: str) -> RequestFailed:
    """A listing block that names no request: a failed case, as in mcp-assert (not a load error)."""
    message = f"{block} requires either 'list' or '{other}'"
    return RequestFailed(Failure(kind=FailureKind.CONFIG, check=block, message=message), "")


def _resource_text(item: dict[str, Any]) -> str:
    if "text" in item:
        return str(item["text"])
    blob = str(item.get("blob", ""))
    return f'<blob mimeType="{item.get("mimeType", "")}" len={len(blob)}>'


async def _wait_for(session: Session, mark: int, method: str, limit_s: float, after: Straggling) -> None:
    """Wait at most `limit_s` for a `method` notification after `mark`."""
    after.answered()
    with anyio.move_on_after(limit_s):
        while not any(note.method == method for note in session.notifications[mark:]):
            await anyio.sleep(0.02)


async def observe_prompts(
    block: PromptsBlock, session: Session, variables: Mapping[str, str], after: Straggling
) -> Observation:
    """prompts/list, or prompts/get whose text is the description plus every message's content."""
    started = time.perf_counter()
    if block.list_ is not None:  # mcp-assert lists when a block has both
        result = await session.list_prompts(block.list_.cursor)
        text = compact_json(result)
    elif block.get is None:
        raise _incomplete("assert_prompts", "get")
    else:
        arguments = {key: str(fill(value, variables)) for key, value in block.get.arguments.items()}
        result = await session.get_prompt(fill(block.get.name, variables), arguments)
        parts = [str(result["description"])] if result.get("description") else []
        for message in result.get("messages") or []:
            content = message.get("content") or {}
            parts.append(str(content["text"]) if content.get("type") == "text" else compact_json(content))
        text = "\n".join(parts)
    return Observation(text=text, result=result, duration_s=time.perf_counter() - started)


async def observe_completion(
    block: CompletionBlock, session: Session, variables: Mapping[str, str], after: Straggling
) -> Observation:
    """completion/complete; the checked text is the result as JSON."""
    started = time.perf_counter()
    ref: dict[str, Any] = {"type": block.ref.type}
    if block.ref.type == "ref/prompt":
        ref["name"] = block.ref.name or ""
    else:
        ref["uri"] = block.ref.uri or block.ref.name or ""
    argument = {"name": block.argument.name, "value": str(fill(block.argument.value, variables))}
    context = {key: str(fill(value, variables)) for key, value in (block.context or {}).items()} or None
    result = await session.complete(ref, argument, context)
    return Observation(text=compact_json(result), result=result, duration_s=time.perf_counter() - started)


async def observe_tools(
    block: ToolsBlock, session: Session, variables: Mapping[str, str], after: Straggling
) -> Observation:
    """tools/list through every page; the result is `{"tools": [...]}` and the text its JSON."""
    started = time.perf_counter()
    result = {"tools": await session.list_tools()}
    return Observation(text=compact_json(result), result=result, duration_s=time.perf_counter() - started)


async def observe_skills(
    block: SkillsBlock, session: Session, variables: Mapping[str, str], after: Straggling
) -> Observation:
    """The skills extension: `{"skills": [...]}` for a listing, the skills/get result as sent,
    `{"skill": entry, "files": [...]}` for a load (every file verified by the client), `{"resources": [...]}`
    for a directory; the text is the result's JSON."""
    from toolproof.mcp import skills

    started = time.perf_counter()
    result: dict[str, Any]
    if block.get is not None:
        result = await skills.get_skill(session, fill(block.get, variables))
    elif block.load is not None:
        entry = await skills.find_skill(session, fill(block.load, variables))
        result = {"skill": entry, "files": await skills.load_skill(session, entry)}
    elif block.directory is not None:
        result = {"resources": await skills.read_directory(session, fill(block.directory, variables))}
    else:
        cursor = block.list_.cursor if block.list_ is not None else None
        result = {"skills": await skills.list_skills(session, cursor)}
    return Observation(text=compact_json(result), result=result, duration_s=time.perf_counter() - started)


Observer = Callable[[Any, "Session", Mapping[str, str], Straggling], Awaitable[Observation]]

OBSERVERS: dict[type, Observer] = {
    AssertBlock: observe_tool,
    SamplingBlock: observe_tool,
    NotificationsBlock: observe_notifications,
    LoggingBlock: observe_logging,
    ResourcesBlock: observe_resources,
    PromptsBlock: observe_prompts,
    CompletionBlock: observe_completion,
    ToolsBlock: observe_tools,
    SkillsBlock: observe_skills,
}
