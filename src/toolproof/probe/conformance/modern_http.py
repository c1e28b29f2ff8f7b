"""The 2026-07-28 era's checks of Streamable HTTP itself, made with plain HTTP requests: no session is minted
(SEP-2575), the HTTP status of each kind of rejection, and the validation of the standard request headers
against the body (SEP-2243)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx2
import mcp_types as types

from toolproof.mcp.http import HttpChannel
from toolproof.mcp.spec import ConnectSpec
from toolproof.probe.conformance.checks import RequirementResult, error_code, failed, guarded, passed, skipped
from toolproof.probe.conformance.inputs import ProbeInputs
from toolproof.probe.conformance.listen import (
    ACKNOWLEDGED,
    FOLLOW_S,
    LISTEN_WAIT_S,
    acknowledgement,
    following,
    notification_filter,
)
from toolproof.probe.conformance.stateless import STATELESS, UNSUPPORTED_VERSION, cited
from toolproof.probe.conformance.wire import MODERN_ERA, envelope, routing_headers

HTTP = "basic/transports/streamable-http"
ACCEPT = "application/json, text/event-stream"
SESSION_HEADER = "mcp-session-id"
MADE_UP_SESSION = "toolproof-made-up-session"
HEADERS_SCENARIO = "http-header-validation/sep-2243-"
LISTEN_ID = 1
FILLERS: dict[str, Any] = {"string": "toolproof", "integer": 0, "number": 0, "boolean": False}

Message = dict[str, Any]


class Exchange:
    """One POST and what came back: the HTTP response, and the JSON-RPC message it carried, if any."""

    def __init__(self, response: httpx2.Response, message: Message | None) -> None:
        self.response = response
        self.message = message or {}

    @property
    def status(self) -> int:
        return self.response.status_code

    @property
    def code(self) -> int | None:
        return error_code(self.message)

    def brief(self) -> str:
        return f"HTTP {self.status}" + (f" with error {self.code}" if self.code is not None else "")


async def exchange(
    client: httpx2.AsyncClient,
    url: str,
    method: str,
    params: dict[str, Any] | None = None,
    *,
    meta: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> Exchange:
    """POST one request in the 2026-07-28 era: stamped with `meta` (the full envelope by default) and the
    routing headers, which `headers` replace."""
    body = {**(params or {}), "_meta": envelope(MODERN_ERA) if meta is None else meta}
    sent = routing_headers(MODERN_ERA, method, body) if headers is None else headers
    message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": body}
    framing = {"Accept": ACCEPT, "Content-Type": "application/json"}
    async with client.stream(
        "POST", url, content=json.dumps(message), headers={**framing, **sent}
    ) as response:
        answer: Message | None = None
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            async for data in sse_messages(response):  # the answer is the first message with an id
                if "id" in data and "method" not in data:
                    answer = data
                    break
        else:
            raw = await response.aread()
            try:
                parsed = json.loads(raw) if raw else None
            except ValueError:
                parsed = None
            answer = parsed if isinstance(parsed, dict) else None
    return Exchange(response, answer)


async def sse_messages(response: httpx2.Response) -> AsyncIterator[Message]:
    """The JSON-RPC messages of an SSE stream, one per event: an event whose data is empty (a priming event)
    or not a JSON object carries none."""
    data: list[str] = []
    async for line in response.aiter_lines():
        if line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
        elif not line and data:
            try:
                message = json.loads("\n".join(data))
            except ValueError:
                message = None
            data = []
            if isinstance(message, dict):
                yield message


async def modern_http_checks(spec: ConnectSpec, inputs: ProbeInputs) -> list[RequirementResult]:
    """The 2026-07-28 transport checks against the server at `spec.url` (Streamable HTTP only); `inputs`
    name the tools the probe may call."""
    channel = HttpChannel(spec)
    async with channel.client(auth=channel.auth_flow()) as client:
        verdicts = await guarded(HTTP, _no_session(client, spec.url))
        verdicts += await guarded(HTTP, _statuses(client, spec.url))
        verdicts += await guarded(HTTP, _header_validation(client, spec.url, inputs))
        verdicts += await guarded(HTTP, _listen(client, spec.url))
    return verdicts


async def _no_session(client: httpx2.AsyncClient, url: str) -> list[RequirementResult]:
    section = f"{HTTP}#earlier-streamable-http-revisions"
    check = "no session id is minted or echoed"
    problems = []
    for method in ("server/discover", "tools/list"):
        made = await exchange(client, url, method, headers={**routing_headers(MODERN_ERA, method, {})})
        if SESSION_HEADER in made.response.headers:
            problems.append(
                f"{method} answered with Mcp-Session-Id {made.response.headers[SESSION_HEADER]!r}"
            )
    headers = {**routing_headers(MODERN_ERA, "server/discover", {}), SESSION_HEADER: MADE_UP_SESSION}
    echoed = await exchange(client, url, "server/discover", headers=headers)
    if "result" not in echoed.message:
        problems.append(f"server/discover with a made-up Mcp-Session-Id got {echoed.brief()}, not a result")
    elif SESSION_HEADER in echoed.response.headers:
        problems.append("a made-up Mcp-Session-Id came back in the answer")
    verdict = failed(check, section, "; ".join(problems)) if problems else passed(check, section)
    return [verdict]  # the official suite does not test this


async def _statuses(client: httpx2.AsyncClient, url: str) -> list[RequirementResult]:
    """The HTTP status that goes with each rejection of SEP-2575 (the error code too where no check over the
    link judges it)."""
    full = envelope(MODERN_ERA)
    bare = {k: v for k, v in full.items() if k != types.PROTOCOL_VERSION_META_KEY}
    old = {**full, types.PROTOCOL_VERSION_META_KEY: UNSUPPORTED_VERSION}
    old_headers = {"mcp-protocol-version": UNSUPPORTED_VERSION, "mcp-method": "server/discover"}
    cases: list[tuple[str, str, Exchange, int, int | None, tuple[str, ...]]] = [
        (
            "an invalid envelope is HTTP 400",
            "basic#per-request-protocol-fields",
            await exchange(client, url, "server/discover", meta=bare),
            400,
            None,
            (f"{STATELESS}http-server-meta-invalid-400",),
        ),
        (
            "an unsupported version is HTTP 400",
            "basic/versioning#version-negotiation",
            await exchange(client, url, "server/discover", meta=old, headers=old_headers),
            400,
            None,
            (f"{STATELESS}http-server-unsupported-version-400",),
        ),
        (
            "an unknown method is HTTP 404",
            "basic#responses",
            await exchange(client, url, "toolproof/no-such-method"),
            404,
            None,
            (f"{STATELESS}http-server-method-not-found-404",),
        ),
        (
            "a version header unlike _meta is HTTP 400 -32020",
            f"{HTTP}#protocol-version-header",
            await exchange(client, url, "server/discover", meta=old),
            400,
            types.HEADER_MISMATCH,
            (f"{STATELESS}http-server-header-mismatch-400",),
        ),
    ]
    verdicts = []
    for check, section, made, status, code, official in cases:
        if made.status == status and code in (None, made.code):
            verdict = passed(check, section)
        else:
            wanted = f"HTTP {status}" + (f" with error {code}" if code is not None else "")
            verdict = failed(check, section, f"got {made.brief()}, not {wanted}")
        verdicts += cited([verdict], *official)
    return verdicts


def call_arguments(tool: dict[str, Any], inputs: ProbeInputs) -> dict[str, Any] | None:
    """What the probe may call `tool` with: the user's arguments, else (a read-only tool) a value of each
    required argument's type; None when it may not be called."""
    name = str(tool.get("name"))
    if name in inputs.tools:
        return dict(inputs.tools[name])
    if not (tool.get("annotations") or {}).get("readOnlyHint"):
        return None
    schema = tool.get("inputSchema") or {}
    properties = schema.get("properties") or {}
    return {
        key: FILLERS.get(str((properties.get(key) or {}).get("type")), "toolproof")
        for key in schema.get("required") or []
    }


def _callable_tool(tools: list[Any], inputs: ProbeInputs) -> tuple[str, dict[str, Any]] | None:
    """A tool the probe may call, and its arguments: one the user's inputs name first, else one that says it
    only reads. A call with a header the server must reject is refused before the tool runs, so it risks
    nothing either way."""
    listed = [tool for tool in tools if isinstance(tool, dict)]
    for tool in sorted(listed, key=lambda tool: str(tool.get("name")) not in inputs.tools):
        arguments = call_arguments(tool, inputs)
        if arguments is not None:
            return str(tool.get("name")), arguments
    return None


async def _header_validation(
    client: httpx2.AsyncClient, url: str, inputs: ProbeInputs
) -> list[RequirementResult]:
    """SEP-2243: a header that disagrees with the body is HTTP 400 -32020; header names are case-insensitive.
    (Whitespace around a value is not sent: the HTTP client refuses it, as fetch strips it.)"""
    section = f"{HTTP}#server-validation"
    version = {"mcp-protocol-version": MODERN_ERA}
    listed = await exchange(client, url, "tools/list")
    tools = (listed.message.get("result") or {}).get("tools") or []
    reject: list[tuple[str, str, dict[str, Any], dict[str, str]]] = [
        ("Mcp-Method unlike the body", "tools/list", {}, {"Mcp-Method": "prompts/list"}),
        ("no Mcp-Method", "tools/list", {}, {}),
        ("Mcp-Method in another case", "tools/list", {}, {"Mcp-Method": "TOOLS/LIST"}),
    ]
    accept: list[tuple[str, str, dict[str, Any], dict[str, str]]] = [
        ("a lowercase header name", "tools/list", {}, {"mcp-method": "tools/list"}),
        ("an uppercase header name", "tools/list", {}, {"MCP-METHOD": "tools/list"}),
    ]
    chosen = _callable_tool(tools, inputs)
    if chosen is not None:
        call = {"name": chosen[0], "arguments": chosen[1]}
        reject += [
            (
                "Mcp-Name unlike the tool",
                "tools/call",
                call,
                {"Mcp-Method": "tools/call", "Mcp-Name": "toolproof_wrong"},
            ),
            ("no Mcp-Name on tools/call", "tools/call", call, {"Mcp-Method": "tools/call"}),
        ]
    problems = []
    for what, method, params, headers in reject:
        made = await exchange(client, url, method, params, headers={**version, **headers})
        if made.status != 400 or made.code != types.HEADER_MISMATCH:
            problems.append(f"{what}: {made.brief()}, not HTTP 400 with -32020")
    check = "headers unlike the body are HTTP 400 -32020"
    verdicts = cited(
        [
            failed(check, section, "; ".join(problems))
            if problems
            else passed(check, section, f"{len(reject)} cases")
        ],
        f"{HEADERS_SCENARIO}server-reject-invalid-headers",
        f"{HEADERS_SCENARIO}server-reject-error-code",
    )
    problems = []
    for what, method, params, headers in accept:
        made = await exchange(client, url, method, params, headers={**version, **headers})
        if made.status == 400 or made.code == types.HEADER_MISMATCH:
            problems.append(f"{what}: {made.brief()}")
    check = "header names are case-insensitive"
    verdicts += cited(
        [
            failed(check, section, "; ".join(problems))
            if problems
            else passed(check, section, f"{len(accept)} cases")
        ],
        f"{HEADERS_SCENARIO}header-name-case-insensitive",
    )
    if chosen is None:
        reason = "no tool says it is read-only (readOnlyHint), and --inputs names none the server lists"
        verdicts.append(skipped("Mcp-Name validated", section, reason))
    return verdicts


async def _frames(client: httpx2.AsyncClient, url: str, params: dict[str, Any]) -> list[Message]:
    """The messages on a `subscriptions/listen` stream (or its error answer): the first within LISTEN_WAIT_S,
    then those that follow within FOLLOW_S. The stream is closed after them."""
    body = {**params, "_meta": envelope(MODERN_ERA)}
    message = {"jsonrpc": "2.0", "id": LISTEN_ID, "method": "subscriptions/listen", "params": body}
    headers = {"Accept": ACCEPT, "Content-Type": "application/json"}
    headers |= routing_headers(MODERN_ERA, "subscriptions/listen", body)
    frames: list[Message] = []
    with anyio.move_on_after(LISTEN_WAIT_S):
        async with client.stream("POST", url, content=json.dumps(message), headers=headers) as response:
            if not response.headers.get("content-type", "").startswith("text/event-stream"):
                parsed = json.loads(await response.aread() or b"null")
                return [parsed] if isinstance(parsed, dict) else []
            messages = sse_messages(response)
            async for data in messages:
                frames.append(data)
                break
            with anyio.move_on_after(FOLLOW_S):
                async for data in messages:
                    frames.append(data)
    return frames


async def _listen(client: httpx2.AsyncClient, url: str) -> list[RequirementResult]:
    """SEP-2575 subscriptions over HTTP: the first message on a `subscriptions/listen` stream acknowledges it,
    and the notifications after it are the subscription's (`listen.py` judges them)."""
    discovered = await exchange(client, url, "server/discover")
    capabilities = (discovered.message.get("result") or {}).get("capabilities") or {}
    wanted, offered = notification_filter(capabilities)
    frames = await _frames(client, url, {"notifications": wanted})
    verdicts = acknowledgement(frames[0] if frames else None, offered, LISTEN_ID)
    if frames and frames[0].get("method") == ACKNOWLEDGED:
        verdicts += following(frames[1:], wanted, LISTEN_ID)
    return verdicts
