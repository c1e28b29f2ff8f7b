"""Checks of the Streamable HTTP transport itself, made with plain HTTP requests: the session header, DELETE,
the protocol-version header, and the Origin/Host validation that stops DNS rebinding."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx2

from toolproof.mcp.http import HttpChannel
from toolproof.mcp.spec import ConnectSpec
from toolproof.model.result import Status
from toolproof.probe.conformance.checks import RequirementResult, failed, guarded, passed, skipped

TRANSPORTS = "basic/transports"
ACCEPT = "application/json, text/event-stream"
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")
HOSTILE = "evil.example"
STREAMS = 3


def _message(method: str, ident: int | None = 1, params: dict[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params or {}}
    if ident is not None:
        message["id"] = ident
    return message


def _initialize() -> dict[str, Any]:
    info = {"name": "toolproof-conformance", "version": "1"}
    return _message(
        "initialize", 1, {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": info}
    )


def _brief(response: httpx2.Response) -> str:
    return f"HTTP {response.status_code}"


async def _post(
    client: httpx2.AsyncClient, url: str, message: dict[str, Any], headers: dict[str, str] | None = None
) -> httpx2.Response:
    sent = {"Accept": ACCEPT, "Content-Type": "application/json", **(headers or {})}
    async with client.stream("POST", url, content=json.dumps(message), headers=sent) as response:
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            async for line in response.aiter_lines():  # the first event carries the answer
                if line.startswith("data:"):
                    break
        else:
            await response.aread()
    return response


async def http_checks(spec: ConnectSpec) -> list[RequirementResult]:
    """The transport checks against the server at `spec.url` (Streamable HTTP only)."""
    channel = HttpChannel(spec)
    async with channel.client(auth=channel.auth_flow()) as client:
        verdicts = await guarded(TRANSPORTS, _session(client, spec.url))
        for check in (_protocol_header, _priming, _streams, _rebinding):
            verdicts += await guarded(TRANSPORTS, check(client, spec.url))
        return verdicts


async def _open(client: httpx2.AsyncClient, url: str) -> str | None:
    """Initialize over plain HTTP; the session id the server assigned, if any."""
    response = await _post(client, url, _initialize())
    session = response.headers.get("mcp-session-id")
    headers = {"MCP-Protocol-Version": "2025-11-25", **({"Mcp-Session-Id": session} if session else {})}
    await _post(client, url, _message("notifications/initialized", None), headers)
    return session


async def _session(client: httpx2.AsyncClient, url: str) -> list[RequirementResult]:
    section = f"{TRANSPORTS}#session-management"
    session = await _open(client, url)
    if not session:
        reason = "the server assigns no Mcp-Session-Id (stateless)"
        return [
            skipped("session id is visible ASCII", section, reason),
            skipped("session header required", section, reason),
            skipped("DELETE ends the session", section, reason),
        ]
    version = {"MCP-Protocol-Version": "2025-11-25"}
    verdicts = [visible_ascii(session)]
    without = await _post(client, url, _message("ping", 2), version)
    problems = []
    if without.status_code != 400:
        problems.append(f"a request without Mcp-Session-Id got {_brief(without)}, not 400")
    check = "session header required"
    verdicts.append(failed(check, section, "; ".join(problems)) if problems else passed(check, section))
    ended = await client.delete(url, headers={**version, "Mcp-Session-Id": session})
    check = "DELETE ends the session"
    if ended.status_code == 405:
        verdicts.append(passed(check, section, "the server does not let clients end sessions (405)"))
    elif ended.status_code >= 300:
        verdicts.append(failed(check, section, f"DELETE with the session id got {_brief(ended)}"))
    else:
        after = await _post(client, url, _message("ping", 4), {**version, "Mcp-Session-Id": session})
        if after.status_code == 404:
            verdicts.append(passed(check, section))
        else:
            verdicts.append(
                failed(check, section, f"a request in the deleted session got {_brief(after)}, not 404")
            )
    return verdicts


def visible_ascii(session: str) -> RequirementResult:
    """The session id holds only visible ASCII characters (0x21 to 0x7E)."""
    check, section = "session id is visible ASCII", f"{TRANSPORTS}#session-management"
    outside = sorted({f"U+{ord(c):04X}" for c in session if not 0x21 <= ord(c) <= 0x7E})
    if outside:
        return failed(check, section, f"the Mcp-Session-Id holds {', '.join(outside[:5])}")
    return passed(check, section)


async def _priming(client: httpx2.AsyncClient, url: str) -> RequirementResult:
    """SEP-1699: a server that makes its POST streams resumable (event ids) opens each with a priming event
    (an id and empty data) and SHOULD say how soon to reconnect (`retry`)."""
    check, section = "SSE priming event (SEP-1699)", f"{TRANSPORTS}#resumability-and-redelivery"
    session = await _open(client, url)
    headers = {"MCP-Protocol-Version": "2025-11-25", **({"Mcp-Session-Id": session} if session else {})}
    sent = {"Accept": ACCEPT, "Content-Type": "application/json", **headers}
    events: list[dict[str, str]] = []
    async with client.stream("POST", url, content=json.dumps(_message("ping", 3)), headers=sent) as response:
        if not response.headers.get("content-type", "").startswith("text/event-stream"):
            return skipped(check, section, "the server answers with JSON, not an SSE stream")
        event: dict[str, str] = {}
        async for line in response.aiter_lines():
            if not line:
                if event:
                    events.append(event)
                if any(e.get("data", "").strip() not in ("", "{}") for e in events):
                    break  # the answer came
                event = {}
                continue
            name, _, value = line.partition(":")
            event[name] = event.get(name, "") + value.removeprefix(" ")
    if not any("id" in e for e in events):
        return skipped(check, section, "the server's SSE streams carry no event ids (not resumable)")
    first = events[0]
    if "id" not in first or first.get("data", "").strip() not in ("", "{}"):
        return failed(
            check, section, "the stream's first event is not a priming event (an id and empty data)"
        )
    if "retry" not in first:
        return RequirementResult(
            check,
            section,
            Status.PASS,
            "priming event without retry",
            warnings=("the priming event SHOULD carry a retry field (SEP-1699)",),
        )
    return passed(check, section, f"retry {first['retry']} ms")


async def _streams(client: httpx2.AsyncClient, url: str) -> RequirementResult:
    """The client MAY keep several POST streams open at once: requests sent together are each answered."""
    check, section = "several POST streams at once", f"{TRANSPORTS}#multiple-connections"
    session = await _open(client, url)
    headers = {"MCP-Protocol-Version": "2025-11-25", **({"Mcp-Session-Id": session} if session else {})}
    answers: list[httpx2.Response] = []

    async def ping(ident: int) -> None:
        answers.append(await _post(client, url, _message("ping", ident), headers))

    async with anyio.create_task_group() as group:
        for ident in range(10, 10 + STREAMS):
            group.start_soon(ping, ident)
    refused = [_brief(answer) for answer in answers if answer.status_code != 200]
    if refused:
        return failed(check, section, f"of {STREAMS} pings sent together, some got {', '.join(refused)}")
    return passed(check, section, f"{STREAMS} pings answered")


async def _protocol_header(client: httpx2.AsyncClient, url: str) -> RequirementResult:
    section = f"{TRANSPORTS}#protocol-version-header"
    check = "unsupported MCP-Protocol-Version is 400"
    session = await _open(client, url)
    headers = {"MCP-Protocol-Version": "1999-01-01", **({"Mcp-Session-Id": session} if session else {})}
    response = await _post(client, url, _message("ping", 2), headers)
    if response.status_code == 400:
        return passed(check, section)
    return failed(check, section, f"a ping with MCP-Protocol-Version 1999-01-01 got {_brief(response)}")


async def _rebinding(client: httpx2.AsyncClient, url: str) -> RequirementResult:
    section = f"{TRANSPORTS}#security-warning"
    check = "foreign Host/Origin rejected (DNS rebinding)"
    host = urlsplit(url).hostname or ""
    if host not in LOCAL_HOSTS:
        return skipped(check, section, f"{host} is not a loopback address")
    hostile = {"Host": HOSTILE, "Origin": f"http://{HOSTILE}"}
    response = await _post(client, url, _initialize(), hostile)
    if 400 <= response.status_code < 500:
        return passed(check, section, f"{_brief(response)} for Host and Origin {HOSTILE}")
    return failed(
        check, section, f"an initialize with Host and Origin {HOSTILE} got {_brief(response)}, not 4xx"
    )
