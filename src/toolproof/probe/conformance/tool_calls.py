"""tools/call on the server's own tools: each tool the probe may call is called once (with a progress token),
then what came back is checked by content type, and tool errors by their shape.

A content type no answer holds is "not applicable", with the tools that were called (or why none could be).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

import mcp_types as types
from pydantic import BaseModel, ValidationError

from toolproof.probe.conformance.checks import (
    ProbedServer,
    RequirementResult,
    failed,
    passed,
    safe_arguments,
    skipped,
)
from toolproof.probe.conformance.wire import NoAnswer

SECTION = "server/tools#tool-result"
MAX_CALLS = 20
CALL_TIMEOUT_S = 5.0  # a tool that takes longer is cancelled and left out (its checks do not count it)
# requirement name, content type, the media type prefix its mimeType must have ("" for none)
CONTENT = (
    ("text content is well-formed", "text", ""),
    ("image content is well-formed", "image", "image/"),
    ("audio content is well-formed", "audio", "audio/"),
    ("embedded resource content is well-formed", "resource", ""),
)
BLOCKS: dict[str, type[BaseModel]] = {
    "text": types.TextContent,
    "image": types.ImageContent,
    "audio": types.AudioContent,
    "resource": types.EmbeddedResource,
    "resource_link": types.ResourceLink,
}
MIXED = "mixed content is well-formed"
ERRORS = "tool errors are isError results with content"


def progress_token(tool: str) -> str:
    """The progress token the probe's call of `tool` carries."""
    return f"toolproof-progress-{tool}"


async def call_tools(server: ProbedServer) -> list[RequirementResult]:
    """Call each tool the probe may call (every one the inputs name, then others up to MAX_CALLS calls),
    keeping the answers in `server.called` and where each call's span of `link.seen` ends in `server.spans`.
    The calls ask for log messages at debug
    level (as the official suite does): the level is set first in the handshake era, each call carries it in
    the 2026-07-28 era (where nothing else the probe sends asks for any)."""
    if not server.link.modern and "logging" in server.capabilities and server.listed.get("tools"):
        await server.link.request("logging/setLevel", {"level": "debug"})
    listed = server.listed.get("tools") or []
    named = server.inputs.tools  # the tools the user vouched for come first, and are always called
    calls = 0
    for tool in sorted(listed, key=lambda tool: str(tool.get("name")) not in named):
        name = str(tool.get("name"))
        arguments = safe_arguments(server, tool)
        if arguments is None or name in server.called or name in server.unanswered:
            continue
        if calls >= MAX_CALLS and name not in named:
            break
        calls += 1
        token = progress_token(name)
        server.progress_tokens.add(token)
        meta: dict[str, Any] = {"progressToken": token}
        if server.link.modern:
            meta[types.LOG_LEVEL_META_KEY] = "debug"
        params = {"name": name, "arguments": arguments, "_meta": meta}
        ident = f"toolproof-call-{name}"
        started = len(server.link.seen)
        try:
            answer = await server.link.request("tools/call", params, request_id=ident, timeout=CALL_TIMEOUT_S)
        except NoAnswer:
            await server.link.abandon(ident, "toolproof conformance: no answer in time")
            server.unanswered.append(name)
            continue
        server.called[name] = answer
        server.spans[name] = (started, len(server.link.seen))
    return []


def block_problem(block: dict[str, Any], media: str) -> str:
    """What is wrong with one content block (of a tool result or a prompt message), or ""."""
    model = BLOCKS.get(str(block.get("type")))
    if model is None:
        return f"unknown content type {block.get('type')!r}"
    try:
        parsed = model.model_validate(block)
    except ValidationError as invalid:
        error = invalid.errors()[0]
        where = ".".join(map(str, error["loc"]))
        return f"{block.get('type')} content is not valid: {where}: {error['msg']}"
    if isinstance(parsed, types.ImageContent | types.AudioContent):
        if media and not parsed.mime_type.startswith(media):
            return f"{parsed.type} content has mimeType {parsed.mime_type!r}, not {media}*"
        if not _base64(parsed.data):
            return f"{parsed.type} content whose data is not base64"
    if isinstance(parsed, types.EmbeddedResource):
        contents = parsed.resource
        if isinstance(contents, types.BlobResourceContents) and not _base64(contents.blob):
            return f"the embedded resource {contents.uri} has a blob that is not base64"
    return ""


def _base64(data: str) -> bool:
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _results(server: ProbedServer) -> dict[str, dict[str, Any]]:
    return {
        name: answer["result"]
        for name, answer in server.called.items()
        if isinstance(answer.get("result"), dict)
    }


def none_called(server: ProbedServer) -> str:
    """Why no tool was called (the reason a check of what calls return is skipped), or "" when some were."""
    if "tools" not in server.capabilities:
        return "the server does not offer tools"
    if not server.called:
        return "no tool is safe to call (read-only with no required argument) and --inputs names none"
    return ""


async def content_types(server: ProbedServer) -> list[RequirementResult]:
    """Each content type, checked on every block of that type the called tools returned."""
    verdicts = []
    results = _results(server)
    why_not = none_called(server)
    for check, kind, media in CONTENT:
        if why_not:
            verdicts.append(skipped(check, SECTION, why_not))
            continue
        seen = [
            (name, block)
            for name, result in results.items()
            for block in result.get("content") or []
            if isinstance(block, dict) and block.get("type") == kind
        ]
        if not seen:
            called = ", ".join(sorted(server.called))
            verdicts.append(skipped(check, SECTION, f"no tool called returned {kind} content ({called})"))
            continue
        problems = [f"{name}: {problem}" for name, block in seen if (problem := block_problem(block, media))]
        owners = sorted({name for name, _ in seen})
        verdicts.append(
            failed(check, SECTION, "; ".join(problems[:3]))
            if problems
            else passed(check, SECTION, ", ".join(owners))
        )
    verdicts.append(_mixed(server, results, why_not))
    return verdicts


def _mixed(server: ProbedServer, results: dict[str, dict[str, Any]], why_not: str) -> RequirementResult:
    if why_not:
        return skipped(MIXED, SECTION, why_not)
    mixed = {
        name: result
        for name, result in results.items()
        if len({block.get("type") for block in result.get("content") or [] if isinstance(block, dict)}) > 1
    }
    if not mixed:
        return skipped(MIXED, SECTION, "no tool called returned more than one type of content")
    problems = []
    for name, result in mixed.items():
        try:
            types.CallToolResult.model_validate(result)
        except ValidationError as invalid:
            problems.append(f"{name}: {invalid.errors()[0]['msg']}")
    return (
        failed(MIXED, SECTION, "; ".join(problems[:3]))
        if problems
        else passed(MIXED, SECTION, ", ".join(mixed))
    )


async def tool_errors(server: ProbedServer) -> list[RequirementResult]:
    """A tool that fails says so in its result (isError) with content saying why; a protocol error for a tool
    that exists is not how a tool reports its failure."""
    section = "server/tools#error-handling"
    if why_not := none_called(server):
        return [skipped(ERRORS, section, why_not)]
    problems, erred = [], []
    for name, answer in server.called.items():
        result = answer.get("result")
        if isinstance(result, dict) and result.get("isError"):
            erred.append(name)
            if not result.get("content"):
                problems.append(f"{name} returned isError without content")
    if problems:
        return [failed(ERRORS, section, "; ".join(problems[:3]))]
    if not erred:
        return [skipped(ERRORS, section, f"no tool called failed ({', '.join(sorted(server.called))})")]
    return [passed(ERRORS, section, ", ".join(erred))]
