"""More of the 2026-07-28 era's Streamable HTTP checks, made with plain HTTP requests: several POST streams at
once, the Host/Origin validation that stops DNS rebinding, and the `Mcp-Param-*` headers that mirror a tool's
`x-mcp-header` arguments (SEP-2243), checked on a tool the probe may call."""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx2
import mcp_types as types
from mcp.shared.inbound import MCP_PARAM_HEADER_PREFIX, mcp_param_headers, x_mcp_header_map

from toolproof.mcp.http import HttpChannel
from toolproof.mcp.spec import ConnectSpec
from toolproof.probe.conformance.checks import RequirementResult, failed, guarded, passed, skipped
from toolproof.probe.conformance.http_checks import HOSTILE, LOCAL_HOSTS, STREAMS
from toolproof.probe.conformance.inputs import ProbeInputs
from toolproof.probe.conformance.modern_http import (
    HTTP,
    Exchange,
    call_arguments,
    exchange,
    modern_http_checks,
)
from toolproof.probe.conformance.stateless import cited
from toolproof.probe.conformance.wire import MODERN_ERA, routing_headers

CUSTOM = "http-custom-header-server-validation/sep-2243-"
CUSTOM_CHECKS = tuple(
    f"{CUSTOM}{name}"
    for name in (
        "server-decode-base64",
        "server-validate-param-match",
        "server-reject-invalid-param-chars",
        "server-reject-param-mismatch",
    )
)
VALUE = "Hello"


async def transport_checks(spec: ConnectSpec, inputs: ProbeInputs | None = None) -> list[RequirementResult]:
    """Every 2026-07-28 transport check against the server at `spec.url` (Streamable HTTP only)."""
    verdicts = await modern_http_checks(spec, inputs or ProbeInputs())
    channel = HttpChannel(spec)
    async with channel.client(auth=channel.auth_flow()) as client:
        for check in (_streams, _rebinding):
            verdicts += await guarded(HTTP, check(client, spec.url))
        verdicts += await guarded(HTTP, _custom_headers(client, spec.url, inputs or ProbeInputs()))
    return verdicts


async def _streams(client: httpx2.AsyncClient, url: str) -> list[RequirementResult]:
    """Requests sent together, each on its own POST stream, are each answered."""
    check, section = "several POST streams at once", f"{HTTP}#sending-messages-to-the-server"
    made: list[Exchange] = []

    async def discover() -> None:
        made.append(await exchange(client, url, "server/discover"))

    async with anyio.create_task_group() as group:
        for _ in range(STREAMS):
            group.start_soon(discover)
    unanswered = [each.brief() for each in made if "result" not in each.message]
    if unanswered:
        verdict = failed(check, section, f"of {STREAMS} requests sent together, {', '.join(unanswered)}")
    else:
        verdict = passed(check, section, f"{STREAMS} server/discover answered")
    scenario = "server-sse-multiple-streams/"
    return cited(
        [verdict],
        f"{scenario}server-accepts-multiple-post-streams",
        f"{scenario}server-sse-streams-functional",
    )


async def _rebinding(client: httpx2.AsyncClient, url: str) -> list[RequirementResult]:
    """A loopback server refuses a request whose Host and Origin name another host, and serves its own."""
    check, section = "foreign Host/Origin rejected (DNS rebinding)", f"{HTTP}#security-warning"
    scenario = "dns-rebinding-protection/"
    official = (f"{scenario}localhost-host-rebinding-rejected", f"{scenario}localhost-host-valid-accepted")
    host = urlsplit(url).hostname or ""
    if host not in LOCAL_HOSTS:
        return cited([skipped(check, section, f"{host} is not a loopback address")], *official)
    hostile = {
        **routing_headers(MODERN_ERA, "server/discover", {}),
        "Host": HOSTILE,
        "Origin": f"http://{HOSTILE}",
    }
    made = await exchange(client, url, "server/discover", headers=hostile)
    if 400 <= made.status < 500:
        verdict = passed(check, section, f"HTTP {made.status} for Host and Origin {HOSTILE}")
    else:
        verdict = failed(check, section, f"server/discover with Host and Origin {HOSTILE} got {made.brief()}")
    return cited([verdict], *official)


def _mirrored(tool: dict[str, Any]) -> str | None:
    """The first string argument of `tool` whose value goes in an `Mcp-Param-*` header, if any."""
    schema = tool.get("inputSchema") or {}
    for path in x_mcp_header_map(schema):
        field = (schema.get("properties") or {}).get(path[0]) or {}
        if len(path) == 1 and field.get("type") == "string":
            return path[0]
    return None


async def _custom_headers(
    client: httpx2.AsyncClient, url: str, inputs: ProbeInputs
) -> list[RequirementResult]:
    """SEP-2243: a tools/call whose `Mcp-Param-*` header disagrees with the argument it mirrors (a different
    value, broken Base64, no header) is HTTP 400 -32020; a Base64 header is decoded, and a value that only
    looks like Base64 is taken as it is."""
    check, section = "Mcp-Param headers are validated against the arguments", f"{HTTP}#custom-headers"
    listed = await exchange(client, url, "tools/list")
    tools = (listed.message.get("result") or {}).get("tools") or []
    chosen = next(
        (
            (tool, argument, arguments)
            for tool in tools
            if isinstance(tool, dict)
            and (argument := _mirrored(tool)) is not None
            and (arguments := call_arguments(tool, inputs)) is not None
        ),
        None,
    )
    if chosen is None:
        reason = "no tool the probe may call mirrors a string argument in a header (x-mcp-header)"
        return cited([skipped(check, section, reason)], *CUSTOM_CHECKS)
    tool, argument, arguments = chosen
    name = str(tool["name"])
    token = x_mcp_header_map(tool["inputSchema"])[(argument,)]
    header = f"{MCP_PARAM_HEADER_PREFIX}{token}"
    encoded = base64.b64encode(VALUE.encode()).decode()
    cases = [  # (what, the argument's value, the header's value or None for no header, accepted)
        ("a Base64 header", VALUE, f"=?base64?{encoded}?=", True),
        ("a value that looks like Base64", encoded, encoded, True),
        ("a different value", VALUE, "Goodbye", False),
        ("Base64 without its padding", VALUE, f"=?base64?{encoded.rstrip('=')}?=", False),
        ("Base64 with characters outside its alphabet", VALUE, "=?base64?SGVs!!!bG8=?=", False),
        ("no header", VALUE, None, False),
    ]
    problems = []
    for what, value, sent, accepted in cases:
        called = {**arguments, argument: value}
        params = {"name": name, "arguments": called}
        headers = routing_headers(MODERN_ERA, "tools/call", params)
        headers |= mcp_param_headers(x_mcp_header_map(tool["inputSchema"]), called)
        headers.pop(header, None)
        if sent is not None:
            headers[header] = sent
        made = await exchange(client, url, "tools/call", params, headers=headers)
        if accepted and (made.status >= 400 or "error" in made.message):
            problems.append(f"{what}: {made.brief()}, not accepted")
        elif not accepted and (made.status != 400 or made.code != types.HEADER_MISMATCH):
            problems.append(f"{what}: {made.brief()}, not HTTP 400 with -32020")
    verdict = (
        failed(check, section, f"{name} ({header}): " + "; ".join(problems[:3]))
        if problems
        else passed(check, section, f"{name} ({header}): {len(cases)} cases")
    )
    return cited([verdict], *CUSTOM_CHECKS)
