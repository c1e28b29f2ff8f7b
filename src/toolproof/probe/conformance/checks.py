"""Protocol checks that hold for any server, over any transport; each cites the spec section it enforces.

They run in order on one raw link (`wire.Link`): the handshake first (offering a protocol version no server
knows), then requests a well-behaved client would never send, then the listings, then what the capabilities
claim. Tools are only ever called when they are read-only and need no argument.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field, replace
from typing import Any

import mcp_types as types
from jsonschema import Draft202012Validator, SchemaError
from jsonschema.validators import validator_for
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION
from pydantic import ValidationError

from toolproof.mcp.errors import classify, expected, leaf
from toolproof.mcp.stdio import StdioChannel, stray_warning
from toolproof.model.result import FailureKind, Status
from toolproof.probe.conformance.inputs import ProbeInputs
from toolproof.probe.conformance.wire import Link, Message, NoAnswer

SPEC = "https://modelcontextprotocol.io/specification/2025-11-25/"
UNKNOWN_VERSION = "1999-01-01"
HANDSHAKE_VERSIONS = frozenset(v for v in KNOWN_PROTOCOL_VERSIONS if v <= LATEST_HANDSHAKE_VERSION)
# What the probe says it can do, so that a server may ask for it during a call (the link answers: see wire).
CLIENT_CAPABILITIES: dict[str, Any] = {"sampling": {}, "elicitation": {"form": {}}}
MAX_PAGES = 100
SETTLE_S = 0.3
SAID_CHARS = 160
LISTS = {
    "tools": ("tools/list", "tools", "name", types.ListToolsResult),
    "resources": ("resources/list", "resources", "uri", types.ListResourcesResult),
    "prompts": ("prompts/list", "prompts", "name", types.ListPromptsResult),
}


@dataclass(frozen=True)
class RequirementResult:
    """The outcome of one check: `section` is the part of the spec it enforces (relative to the spec of its
    era); `official` the official conformance suite's `scenario/check` ids that test the same requirement,
    when the check names them itself (the 2026-07-28 era's; the others are looked up in `official.py`)."""

    check: str
    section: str
    status: Status
    message: str = ""
    seconds: float = 0.0
    warnings: tuple[str, ...] = ()  # what a SHOULD the server does not follow says, without failing
    official: tuple[str, ...] = ()
    kind: FailureKind = FailureKind.PROTOCOL  # what a failure was: the rule broken, or the exchange itself


@dataclass
class ProbedServer:
    """What the checks share: the link, what the handshake and listings found, the inputs the user gave, and
    the answer to each tool the probe called (by name), with what arrived while its call was in flight."""

    link: Link
    capabilities: dict[str, Any]
    listed: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    progress_tokens: set[str | int] = field(default_factory=set)
    inputs: ProbeInputs = field(default_factory=ProbeInputs)
    called: dict[str, Message] = field(default_factory=dict)
    spans: dict[str, tuple[int, int]] = field(
        default_factory=dict
    )  # by tool: link.seen from its call to answer
    unanswered: list[str] = field(default_factory=list)  # tools called that gave no answer in time


RequirementCheck = Callable[[ProbedServer], Awaitable[list[RequirementResult]]]


def passed(check: str, section: str, message: str = "") -> RequirementResult:
    return RequirementResult(check, section, Status.PASS, message)


def failed(check: str, section: str, message: str) -> RequirementResult:
    return RequirementResult(check, section, Status.FAIL, message)


def skipped(check: str, section: str, reason: str) -> RequirementResult:
    return RequirementResult(check, section, Status.SKIP, reason)


def judged(check: str, section: str, problems: list[str], seen: list[str], none: str) -> RequirementResult:
    """Failed with the first problems, else passed naming what was checked (`seen`), else skipped: `none`."""
    if problems:
        return failed(check, section, "; ".join(problems[:3]))
    if seen:
        return passed(check, section, ", ".join(sorted(set(seen))[:5]))
    return skipped(check, section, none)


def error_code(answer: Message) -> int | None:
    error = answer.get("error")
    return error.get("code") if isinstance(error, dict) else None


def said(answer: Message) -> str:
    """A short, one-line account of an answer: the error, or that there was a result."""
    error = answer.get("error")
    text = (
        f"error {error.get('code')}: {error.get('message')}"
        if isinstance(error, dict)
        else (f"result {json.dumps(answer.get('result'))}")
    )
    flat = " ".join(text.split())
    return flat if len(flat) <= SAID_CHARS else flat[: SAID_CHARS - 3] + "..."


async def handshake(link: Link) -> tuple[list[RequirementResult], dict[str, Any]]:
    """Initialize offering an unknown version, check the answer and what came before `initialized`; return the
    verdicts and the server's capabilities. An initialize that is refused is tried again at the newest version
    the SDK offers; NoAnswer when neither is answered with a result."""
    section = "basic/lifecycle#version-negotiation"
    params = {
        "protocolVersion": UNKNOWN_VERSION,
        "capabilities": CLIENT_CAPABILITIES,
        "clientInfo": {"name": "toolproof-conformance", "version": "1"},
    }
    answer = await link.request("initialize", params)
    verdicts: list[RequirementResult] = []
    result = answer.get("result")
    if not isinstance(result, dict):
        verdicts.append(
            failed(
                "version negotiation",
                section,
                f"initialize offering {UNKNOWN_VERSION} was refused ({said(answer)}): the server must answer "
                "with a version it supports",
            )
        )
        answer = await link.request("initialize", {**params, "protocolVersion": LATEST_HANDSHAKE_VERSION})
        result = answer.get("result")
        if not isinstance(result, dict):
            raise NoAnswer(f"initialize offering {LATEST_HANDSHAKE_VERSION} got {said(answer)}")
    version = result.get("protocolVersion")
    if not verdicts and version in HANDSHAKE_VERSIONS:
        verdicts.append(passed("version negotiation", section, f"countered {UNKNOWN_VERSION} with {version}"))
    elif not verdicts:
        verdicts.append(
            failed(
                "version negotiation",
                section,
                f"initialize offering {UNKNOWN_VERSION} was answered with protocolVersion {version!r}, "
                f"not a version the server supports ({', '.join(sorted(HANDSHAKE_VERSIONS))})",
            )
        )
    try:
        types.InitializeResult.model_validate(result)
        verdicts.append(passed("initialize result is well-formed", "basic/lifecycle#initialization"))
    except ValidationError as invalid:
        problem = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in invalid.errors()[:3])
        verdicts.append(failed("initialize result is well-formed", "basic/lifecycle#initialization", problem))
    await link.settle(SETTLE_S)
    early = [m["method"] for m in link.seen if "id" in m and m.get("method") not in (None, "ping")]
    ordering = "basic/lifecycle#initialization"
    if early:
        verdicts.append(
            failed("nothing asked before initialized", ordering, f"the server sent {', '.join(early)} first")
        )
    else:
        verdicts.append(passed("nothing asked before initialized", ordering))
    await link.notify("notifications/initialized")
    capabilities = result.get("capabilities")
    return verdicts, capabilities if isinstance(capabilities, dict) else {}


async def ping(server: ProbedServer) -> list[RequirementResult]:
    section = "basic/utilities/ping"
    answer = await server.link.request("ping")
    if answer.get("result") == {}:
        return [passed("ping", section)]
    return [failed("ping", section, f"ping must be answered with an empty result, got {said(answer)}")]


async def unknown_method(server: ProbedServer) -> list[RequirementResult]:
    section = "basic#responses"
    answer = await server.link.request("toolproof/no-such-method", {})
    if error_code(answer) == types.METHOD_NOT_FOUND:
        return [passed("unknown method is -32601", section)]
    return [failed("unknown method is -32601", section, f"toolproof/no-such-method got {said(answer)}")]


async def invalid_params(server: ProbedServer) -> list[RequirementResult]:
    section = "basic#responses"
    malformed: dict[str, tuple[str, dict[str, Any]]] = {
        "tools": ("tools/call", {"arguments": "not an object"}),
        "prompts": ("prompts/get", {"arguments": 7}),
        "resources": ("resources/read", {"uri": 7}),
    }
    for capability, (method, params) in malformed.items():
        if capability in server.capabilities:
            answer = await server.link.request(method, params)
            if error_code(answer) == types.INVALID_PARAMS:
                return [passed("malformed params are -32602", section, method)]
            return [failed("malformed params are -32602", section, f"{method} {params} got {said(answer)}")]
    return [
        skipped("malformed params are -32602", section, "the server offers no tools, prompts or resources")
    ]


async def request_ids(server: ProbedServer) -> list[RequirementResult]:
    section = "basic#requests"
    problems = []
    for ident in ("toolproof-ü-7", 2**40 + 3, "42"):
        answer = await server.link.request("ping", request_id=ident)
        sent_back = answer.get("id")
        if sent_back != ident or type(sent_back) is not type(ident):
            problems.append(f"id {ident!r} came back as {sent_back!r}")
    if problems:
        return [failed("request ids are echoed", section, "; ".join(problems))]
    return [passed("request ids are echoed", section)]


async def listings(server: ProbedServer) -> list[RequirementResult]:
    """Each advertised listing, page by page: well-formed, finite, without duplicates."""
    section = "server/utilities/pagination"
    verdicts = []
    for capability, (method, key, identity, model) in LISTS.items():
        check = f"{method} pages"
        if capability not in server.capabilities:
            verdicts.append(skipped(check, section, f"the server does not offer {capability}"))
            continue
        items: list[dict[str, Any]] = []
        cursor: str | None = None
        problem = ""
        for _ in range(MAX_PAGES):
            answer = await server.link.request(method, {"cursor": cursor} if cursor else {})
            result = answer.get("result")
            if not isinstance(result, dict):
                problem = f"page {len(items)} got {said(answer)}"
                break
            try:
                model.model_validate(result)
            except ValidationError as invalid:
                problem = f"a page is not a valid {method} result: {invalid.errors()[0]['msg']}"
                break
            items.extend(result.get(key) or [])
            cursor = result.get("nextCursor")
            if not cursor:
                break
        else:
            problem = f"still paginating after {MAX_PAGES} pages"
        names = [str(item.get(identity)) for item in items]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if not problem and duplicates:
            problem = f"listed twice across pages: {', '.join(duplicates[:5])}"
        server.listed[capability] = items
        verdicts.append(
            failed(check, section, problem) if problem else passed(check, section, f"{len(items)} listed")
        )
    return verdicts


async def honest_capabilities(server: ProbedServer) -> list[RequirementResult]:
    """Advertised ⇔ implemented, for what a request can show without changing anything."""
    section = "basic/lifecycle#capability-negotiation"
    caps = server.capabilities
    resources = server.listed.get("resources") or []
    uri = str(resources[0]["uri"]) if resources else "toolproof://no-such-resource"
    prompts = server.listed.get("prompts") or []
    ref = (
        {"type": "ref/prompt", "name": str(prompts[0]["name"])}
        if prompts
        else {"type": "ref/prompt", "name": "x"}
    )
    asks: list[tuple[str, bool, str, dict[str, Any]]] = [
        ("logging", "logging" in caps, "logging/setLevel", {"level": "info"}),
        (
            "completions",
            "completions" in caps,
            "completion/complete",
            {"ref": ref, "argument": {"name": "a", "value": ""}},
        ),
        (
            "resources.subscribe",
            bool((caps.get("resources") or {}).get("subscribe")),
            "resources/subscribe",
            {"uri": uri},
        ),
    ]
    for capability in LISTS:
        asks.append((capability, capability in caps, LISTS[capability][0], {}))
    verdicts = []
    for capability, advertised, method, params in asks:
        check = f"{capability} advertised only if implemented"
        answer = await server.link.request(method, params)
        missing = error_code(answer) == types.METHOD_NOT_FOUND
        if advertised and missing:
            verdicts.append(
                failed(check, section, f"{capability} is advertised but {method} got {said(answer)}")
            )
        elif not advertised and not missing:
            verdicts.append(
                failed(check, section, f"{capability} is not advertised yet {method} got {said(answer)}")
            )
        elif advertised and method == "resources/subscribe" and "error" in answer and resources:
            verdicts.append(failed(check, section, f"subscribing to {uri} got {said(answer)}"))
        elif advertised and method == "logging/setLevel" and "error" in answer:
            verdicts.append(failed(check, section, f"logging/setLevel info got {said(answer)}"))
        else:
            verdicts.append(passed(check, section, "advertised" if advertised else "not advertised"))
        if method == "resources/subscribe" and advertised and "result" in answer:
            await server.link.request("resources/unsubscribe", {"uri": uri})
    return verdicts


def _schema_problem(schema: Any) -> str:
    if not isinstance(schema, dict):
        return "is not an object"
    try:
        validator_for(schema, default=Draft202012Validator).check_schema(schema)
    except SchemaError as invalid:
        return f"is not a valid JSON Schema: {invalid.message}"
    if schema.get("type") != "object":
        return f"has type {schema.get('type')!r}, not 'object'"
    return ""


async def schemas(server: ProbedServer) -> list[RequirementResult]:
    section = "server/tools#tool"
    tools = server.listed.get("tools")
    if tools is None:
        return [skipped("tool schemas are valid JSON Schema", section, "the server does not offer tools")]
    problems = []
    for tool in tools:
        for key in ("inputSchema", "outputSchema"):
            if key in tool and (problem := _schema_problem(tool[key])):
                problems.append(f"{tool.get('name')}: {key} {problem}")
    if problems:
        return [failed("tool schemas are valid JSON Schema", section, "; ".join(problems[:5]))]
    return [passed("tool schemas are valid JSON Schema", section, f"{len(tools)} tools")]


def safe_arguments(server: ProbedServer, tool: dict[str, Any]) -> dict[str, Any] | None:
    """The arguments a probe may call `tool` with: those the user's inputs give for it, else none when it says
    it is read-only and needs no argument; None when it may not be called."""
    name = str(tool.get("name"))
    if name in server.inputs.tools:
        return server.inputs.tools[name]
    schema = tool.get("inputSchema") or {}
    if (tool.get("annotations") or {}).get("readOnlyHint") and not schema.get("required"):
        return {}
    return None


async def structured_output(server: ProbedServer) -> list[RequirementResult]:
    section = "server/tools#output-schema"
    check = "structuredContent matches outputSchema"
    tools = server.listed.get("tools") or []
    candidates = [t for t in tools if "outputSchema" in t and str(t.get("name")) in server.called]
    if not candidates:
        return [skipped(check, section, "no tool the probe may call declares an outputSchema")]
    problems = []
    for tool in candidates:
        result = server.called[str(tool["name"])].get("result")
        if (
            not isinstance(result, dict)
            or result.get("isError")
            or result.get("resultType", "complete") != "complete"
        ):
            continue
        if "structuredContent" not in result:
            problems.append(f"{tool['name']} declares an outputSchema but returned no structuredContent")
            continue
        errors = list(Draft202012Validator(tool["outputSchema"]).iter_errors(result["structuredContent"]))
        if errors:
            problems.append(f"{tool['name']}: {errors[0].message}")
    if problems:
        return [failed(check, section, "; ".join(problems))]
    return [passed(check, section, ", ".join(t["name"] for t in candidates))]


async def cancellation(server: ProbedServer) -> list[RequirementResult]:
    """After a cancellation for a request never sent, the server still answers: a listing it advertises, or
    else ping (whose -32601, from a server without ping, is an answer too)."""
    section = "basic/utilities/cancellation"
    check = "a stray cancellation is ignored"
    await server.link.notify(
        "notifications/cancelled", {"requestId": "toolproof-never-sent", "reason": "probe"}
    )
    method = next((LISTS[name][0] for name in LISTS if name in server.capabilities), "ping")
    try:
        answer = await server.link.request(method)
    except NoAnswer as error:
        return [failed(check, section, f"after notifications/cancelled for an unknown request: {error}")]
    if "result" in answer or (method == "ping" and error_code(answer) == types.METHOD_NOT_FOUND):
        return [passed(check, section, f"{method} answered after it")]
    return [failed(check, section, f"{method} after a stray cancellation got {said(answer)}")]


def passive(server: ProbedServer) -> list[RequirementResult]:
    """What the notifications the server sent during the probe show."""
    verdicts = []
    section = "basic/utilities/progress"
    progress = [
        m.get("params") or {} for m in server.link.seen if m.get("method") == "notifications/progress"
    ]
    strays = [
        p.get("progressToken") for p in progress if p.get("progressToken") not in server.progress_tokens
    ]
    regress = []
    for token in server.progress_tokens:
        values = [p.get("progress", 0) for p in progress if p.get("progressToken") == token]
        if any(later <= earlier for earlier, later in itertools.pairwise(values)):
            regress.append(str(token))
    if not progress:
        verdicts.append(skipped("progress notifications", section, "the server sent none"))
    elif strays or regress:
        message = f"tokens never sent: {strays[:3]}" if strays else f"progress did not increase for {regress}"
        verdicts.append(failed("progress notifications", section, message))
    else:
        verdicts.append(passed("progress notifications", section, f"{len(progress)} received"))
    for capability in LISTS:
        method = f"notifications/{capability}/list_changed"
        check = f"{method} only if listChanged"
        sent = any(m.get("method") == method for m in server.link.seen)
        declared = bool((server.capabilities.get(capability) or {}).get("listChanged"))
        if sent and not declared:
            verdicts.append(
                failed(check, f"server/{capability}#capabilities", f"sent {method} without listChanged")
            )
        elif sent:
            verdicts.append(passed(check, f"server/{capability}#capabilities"))
    if isinstance(server.link.channel, StdioChannel):
        verdicts.append(stdout_only_messages(server.link.stray))
    return verdicts


def stdout_only_messages(stray: list[str]) -> RequirementResult:
    """The stdio rule: the server MUST NOT write anything to its stdout that is not a valid MCP message."""
    check, section = "stdout holds only MCP messages", "basic/transports#stdio"
    warning = stray_warning(stray)
    if warning is None:
        return passed(check, section)
    rule = "the server MUST NOT write anything to its stdout that is not a valid MCP message"
    return failed(check, section, f"{warning} ({rule})")


def timed(verdicts: list[RequirementResult], started: float) -> list[RequirementResult]:
    """`verdicts` sharing the time since `started` (the checks of one step are made together)."""
    share = (time.perf_counter() - started) / max(len(verdicts), 1)
    return [replace(verdict, seconds=share) for verdict in verdicts]


async def guarded(
    section: str, group: Coroutine[Any, Any, list[RequirementResult] | RequirementResult]
) -> list[RequirementResult]:
    """The results of one group of checks (or its one result), timed; when the server's answers break the
    group (a dropped connection, a timeout, a body that is not JSON), one failed result for the group,
    classified, so that the results already made are kept and the other groups still run. `section` is what
    that result cites."""
    started = time.perf_counter()
    name = str(getattr(group, "__name__", "checks")).strip("_").replace("_", " ")
    try:
        made = await group
    except Exception as raised:
        error = leaf(raised)
        if not (expected(error) or isinstance(error, ValueError)):
            raise
        failure = classify(error, during=name)
        verdict = RequirementResult(name, section, Status.FAIL, failure.message, kind=failure.kind)
        return timed([verdict], started)
    return timed(made if isinstance(made, list) else [made], started)
