"""resources/read (text and binary contents), resource templates and resources/unsubscribe, and prompts/get
(with and without arguments, embedded resources and images), on what the server itself lists."""

from __future__ import annotations

import re
from typing import Any

import mcp_types as types
from pydantic import ValidationError

from toolproof.probe.conformance.checks import (
    ProbedServer,
    RequirementResult,
    error_code,
    failed,
    judged,
    passed,
    said,
    skipped,
)
from toolproof.probe.conformance.tool_calls import block_problem

MAX_READS = 10
PLACEHOLDER = "toolproof"
VARIABLE = re.compile(r"\{[+#./;?&]?([A-Za-z0-9_]+)[^}]*\}")


async def resources(server: ProbedServer) -> list[RequirementResult]:
    """Read the listed resources (at most MAX_READS); check text and blob contents by what came back."""
    section = "server/resources#reading-resources"
    checks = ("resources/read text contents", "resources/read binary contents")
    if "resources" not in server.capabilities:
        return [skipped(check, section, "the server does not offer resources") for check in checks]
    listed = (server.listed.get("resources") or [])[:MAX_READS]
    found: dict[str, list[str]] = {"text": [], "blob": []}
    problems: dict[str, list[str]] = {"text": [], "blob": []}
    for resource in listed:
        uri = str(resource.get("uri"))
        answer = await server.link.request("resources/read", {"uri": uri})
        result = answer.get("result")
        try:
            read = types.ReadResourceResult.model_validate(result)
        except ValidationError as invalid:
            problems["text"].append(
                f"{uri}: {said(answer) if result is None else invalid.errors()[0]['msg']}"
            )
            continue
        for contents in read.contents:
            kind = "blob" if isinstance(contents, types.BlobResourceContents) else "text"
            found[kind].append(uri)
            block = {"type": "resource", "resource": contents.model_dump(by_alias=True, mode="json")}
            if problem := block_problem(block, ""):
                problems[kind].append(f"{uri}: {problem}")
    verdicts = []
    for check, kind in zip(checks, ("text", "blob"), strict=True):
        why = f"no resource read had {kind} contents" if listed else "the server lists no resource"
        verdicts.append(judged(check, section, problems[kind], found[kind], why))
    return verdicts


async def templates(server: ProbedServer) -> list[RequirementResult]:
    """resources/templates/list, and each template read with the values --inputs gives for its variables."""
    section, check = "server/resources#resource-templates", "resource templates are read"
    if "resources" not in server.capabilities:
        return [skipped(check, section, "the server does not offer resources")]
    answer = await server.link.request("resources/templates/list", {})
    if error_code(answer) == types.METHOD_NOT_FOUND:
        return [skipped(check, section, "the server has no resources/templates/list")]
    try:
        listed = types.ListResourceTemplatesResult.model_validate(answer.get("result"))
    except ValidationError:
        return [failed(check, section, f"resources/templates/list got {said(answer)}")]
    given = [t.uri_template for t in listed.resource_templates if t.uri_template in server.inputs.templates]
    if not given:
        why = (
            "the server lists no resource template"
            if not listed.resource_templates
            else (
                "--inputs gives values for none of the templates: "
                + ", ".join(t.uri_template for t in listed.resource_templates[:5])
            )
        )
        return [skipped(check, section, why)]
    problems = []
    for template in given:
        uri = fill(template, server.inputs.templates[template])
        read = await server.link.request("resources/read", {"uri": uri})
        result = read.get("result")
        if not isinstance(result, dict) or not result.get("contents"):
            problems.append(f"{uri} got {said(read)}")
    return [
        failed(check, section, "; ".join(problems)) if problems else passed(check, section, ", ".join(given))
    ]


def fill(template: str, values: dict[str, Any]) -> str:
    """`template` with each variable replaced by its value (a placeholder for one not given)."""
    return VARIABLE.sub(lambda match: str(values.get(match.group(1), PLACEHOLDER)), template)


async def unsubscribe(server: ProbedServer) -> list[RequirementResult]:
    section, check = "server/resources#subscriptions", "resources/unsubscribe"
    if not (server.capabilities.get("resources") or {}).get("subscribe"):
        return [skipped(check, section, "the server does not offer resources.subscribe")]
    listed = server.listed.get("resources") or []
    if not listed:
        return [skipped(check, section, "the server lists no resource to subscribe to")]
    uri = str(listed[0].get("uri"))
    await server.link.request("resources/subscribe", {"uri": uri})
    answer = await server.link.request("resources/unsubscribe", {"uri": uri})
    if answer.get("result") == {}:
        return [passed(check, section, uri)]
    return [failed(check, section, f"resources/unsubscribe {uri} got {said(answer)}")]


async def prompts(server: ProbedServer) -> list[RequirementResult]:
    """prompts/get on each listed prompt (at most MAX_READS): required arguments from --inputs, else a
    placeholder (an error for placeholders does not count); then the embedded resources and images its
    messages hold."""
    section = "server/prompts#getting-a-prompt"
    checks = {
        "plain": "prompts/get without arguments",
        "arguments": "prompts/get with arguments",
        "resource": "prompt embedded resource content",
        "image": "prompt image content",
    }
    if "prompts" not in server.capabilities:
        return [skipped(check, section, "the server does not offer prompts") for check in checks.values()]
    got: dict[str, list[str]] = {key: [] for key in checks}
    problems: dict[str, list[str]] = {key: [] for key in checks}
    for prompt in (server.listed.get("prompts") or [])[:MAX_READS]:
        name = str(prompt.get("name"))
        declared = [str(a.get("name")) for a in prompt.get("arguments") or [] if isinstance(a, dict)]
        arguments = server.inputs.prompts.get(name) or {
            str(a.get("name")): PLACEHOLDER for a in prompt.get("arguments") or [] if a.get("required")
        }
        kind = "arguments" if declared else "plain"
        answer = await server.link.request("prompts/get", {"name": name, "arguments": arguments})
        if "error" in answer and arguments and name not in server.inputs.prompts:
            continue  # placeholders it may rightly refuse: only arguments from --inputs make an error count
        if asks_first(answer):
            continue  # it needs input from the client first: the input_required checks judge that
        try:
            result = types.GetPromptResult.model_validate(answer.get("result"))
        except ValidationError as invalid:
            problem = said(answer) if "error" in answer else invalid.errors()[0]["msg"]
            problems[kind].append(f"{name}: {problem}")
            continue
        got[kind].append(name)
        for message in result.messages:
            block = message.content.model_dump(by_alias=True, mode="json", exclude_none=True)
            if block.get("type") in ("resource", "image"):
                got[block["type"]].append(name)
                if problem := block_problem(block, "image/" if block["type"] == "image" else ""):
                    problems[block["type"]].append(f"{name}: {problem}")
    return [judged(check, section, problems[key], got[key], _none(key)) for key, check in checks.items()]


def asks_first(answer: dict[str, Any]) -> bool:
    """Whether `answer` asks the client for input before it gives its result (2026-07-28): an input_required
    result, or -32021 for a client capability the probe did not declare."""
    result = answer.get("result")
    return error_code(answer) == types.MISSING_REQUIRED_CLIENT_CAPABILITY or (
        isinstance(result, dict) and result.get("resultType") == "input_required"
    )


def _none(key: str) -> str:
    return {
        "plain": "the server lists no prompt without arguments",
        "arguments": "the server lists no prompt with arguments",
        "resource": "no prompt got holds an embedded resource",
        "image": "no prompt got holds an image",
    }[key]
