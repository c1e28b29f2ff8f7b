"""SEP-2575 over Streamable HTTP: a request refused for a client capability the client did not declare
(-32021) is answered with HTTP 400. Provoked only where that risks nothing: a `tasks/get` for a task that does
not exist (when the server declares the tasks extension), or a read-only tool without required arguments
that asks for input when every capability is declared, called again declaring none."""

from __future__ import annotations

import time

import httpx2
import mcp_types as types

from toolproof.mcp.http import HttpChannel
from toolproof.mcp.spec import ConnectSpec
from toolproof.mcp.tasks import TASKS_EXTENSION
from toolproof.probe.conformance.checks import RequirementResult, failed, passed, skipped, timed
from toolproof.probe.conformance.modern_http import Exchange, exchange
from toolproof.probe.conformance.mrtr import EVERY_CAPABILITY, INPUT_REQUIRED
from toolproof.probe.conformance.stateless import STATELESS, cited
from toolproof.probe.conformance.tasks import NO_SUCH_TASK
from toolproof.probe.conformance.wire import MODERN_ERA, envelope

CHECK = "a missing client capability (-32021) is HTTP 400"
SECTION = "basic#per-request-protocol-fields"
OFFICIAL = (f"{STATELESS}missing-capability-http-400",)
MAX_TRIES = 5  # tools asked with every capability declared before giving up on finding one that asks


async def _asking_tool(client: httpx2.AsyncClient, url: str) -> str | None:
    """A tool that says it is read-only, needs no argument, and asks for input when every capability is
    declared."""
    listed = await exchange(client, url, "tools/list")
    tools = (listed.message.get("result") or {}).get("tools") or []
    safe = [
        str(tool.get("name"))
        for tool in tools
        if isinstance(tool, dict)
        and (tool.get("annotations") or {}).get("readOnlyHint")
        and not (tool.get("inputSchema") or {}).get("required")
    ]
    for name in safe[:MAX_TRIES]:
        call = {"name": name, "arguments": {}}
        made = await exchange(client, url, "tools/call", call, meta=envelope(MODERN_ERA, EVERY_CAPABILITY))
        if (made.message.get("result") or {}).get("resultType") == INPUT_REQUIRED:
            return name
    return None


async def _refusals(client: httpx2.AsyncClient, url: str) -> list[tuple[str, Exchange]]:
    """Each request that should be refused for a missing capability, with what came back."""
    discovered = await exchange(client, url, "server/discover")
    capabilities = (discovered.message.get("result") or {}).get("capabilities") or {}
    made: list[tuple[str, Exchange]] = []
    if TASKS_EXTENSION in (capabilities.get("extensions") or {}):
        made.append(("tasks/get", await exchange(client, url, "tasks/get", {"taskId": NO_SUCH_TASK})))
    if "tools" in capabilities and (name := await _asking_tool(client, url)) is not None:
        call = {"name": name, "arguments": {}}
        made.append((f"tools/call {name}", await exchange(client, url, "tools/call", call)))
    return made


async def missing_capability_status(spec: ConnectSpec) -> list[RequirementResult]:
    """Every -32021 the probe provokes at `spec.url` comes with HTTP 400 (whether -32021 is the right answer
    is the link's checks' to say)."""
    channel = HttpChannel(spec)
    started = time.perf_counter()
    async with channel.client(auth=channel.auth_flow()) as client:
        try:
            made = await _refusals(client, spec.url)
        except (httpx2.HTTPError, ValueError) as error:  # a broken answer fails this check, not the probe
            return timed(
                cited([failed(CHECK, SECTION, f"the HTTP exchange failed: {error}")], *OFFICIAL), started
            )
    return timed(status_verdict(made), started)


def status_verdict(made: list[tuple[str, Exchange]]) -> list[RequirementResult]:
    """The verdict on what each request (`what`, what came back) got: every -32021 must be HTTP 400."""
    missing = types.MISSING_REQUIRED_CLIENT_CAPABILITY
    refused = [(what, answer) for what, answer in made if answer.code == missing]
    if not refused:
        reason = (
            "the server neither declares the tasks extension nor has a read-only tool without required "
            "arguments that asks for input"
            if not made
            else f"no request was refused with -32021 ({', '.join(what for what, _ in made)})"
        )
        return cited([skipped(CHECK, SECTION, reason)], *OFFICIAL)
    wrong = [f"{what}: {answer.brief()}" for what, answer in refused if answer.status != 400]
    verdict = (
        failed(CHECK, SECTION, "; ".join(wrong))
        if wrong
        else passed(CHECK, SECTION, ", ".join(what for what, _ in refused))
    )
    return cited([verdict], *OFFICIAL)
