"""The 2026-07-28 era's own checks over any transport (SEP-2575 stateless servers, SEP-2549 cache hints,
SEP-2164 resource-not-found, deterministic tool order), made on a raw link stamped in that era
(`wire.Link.era`); `modern.py` runs them in order. Each verdict names the official conformance suite's
`scenario/check` ids for the same requirement.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import mcp_types as types

from toolproof.mcp.http import HttpChannel
from toolproof.model.result import Status
from toolproof.probe.conformance.checks import (
    LISTS,
    ProbedServer,
    RequirementResult,
    error_code,
    failed,
    passed,
    said,
    skipped,
)
from toolproof.probe.conformance.wire import Link, NoAnswer, envelope

UNSUPPORTED_VERSION = "1999-01-01"
MISSING_RESOURCE = "toolproof://no-such-resource"
REMOVED_METHODS = ("initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe")
ORDER_LISTINGS = 3
CACHE_SCOPES = ("public", "private")
STATELESS = "server-stateless/sep-2575-"


def cited(verdicts: list[RequirementResult], *ids: str) -> list[RequirementResult]:
    """`verdicts` naming the official `scenario/check` ids that test the same requirement."""
    return [replace(verdict, official=ids) for verdict in verdicts]


async def discover(link: Link) -> tuple[list[RequirementResult], dict[str, Any]]:
    """`server/discover`: its result and what it declares; NoAnswer when it is not answered with a result (the
    server does not speak the era)."""
    section = "server/discover"
    answer = await link.request("server/discover", {})
    result = answer.get("result")
    if not isinstance(result, dict):
        hint = "the server does not speak this era (--protocol auto finds the newest one it does)"
        raise NoAnswer(f"server/discover in the {link.era} era got {said(answer)}: {hint}")
    supported = result.get("supportedVersions")
    capabilities = result.get("capabilities")
    problems = []
    if not isinstance(supported, list) or link.era not in supported:
        problems.append(f"supportedVersions {supported!r} does not list {link.era}")
    if not isinstance(capabilities, dict):
        problems.append(f"capabilities is {capabilities!r}, not an object")
    check = "server/discover is implemented"
    verdict = failed(check, section, "; ".join(problems)) if problems else passed(check, section)
    verdicts = cited([verdict], f"{STATELESS}server-implements-discover")
    verdicts += cited([_identified(result)], f"{STATELESS}server-identifies-in-result-meta")
    return verdicts, capabilities if isinstance(capabilities, dict) else {}


def _identified(result: dict[str, Any]) -> RequirementResult:
    """A server SHOULD name itself (name and version) in the `_meta` of its results; server/discover's is
    looked at."""
    check, section = "the server names itself in result _meta", "server/discover"
    meta = result.get("_meta")
    info = meta.get(types.SERVER_INFO_META_KEY) if isinstance(meta, dict) else None
    if isinstance(info, dict) and isinstance(info.get("name"), str) and isinstance(info.get("version"), str):
        return passed(check, section, f"{info['name']} {info['version']}")
    where = " (only in the result body, as before the 2026-07-28 era)" if "serverInfo" in result else ""
    warning = f"server/discover carries no name and version in _meta {types.SERVER_INFO_META_KEY}{where}"
    return RequirementResult(check, section, Status.PASS, "not named", warnings=(warning,))


async def envelope_required(probe: ProbedServer) -> list[RequirementResult]:
    """A request whose `_meta` lacks the envelope, or one of its required keys, is -32602; clientInfo is
    optional."""
    section = "basic#per-request-protocol-fields"
    full = envelope(probe.link.era)
    partial = {
        "missing-meta": None,
        "missing-protocol-version": {k: v for k, v in full.items() if k != types.PROTOCOL_VERSION_META_KEY},
        "missing-client-capabilities": {
            k: v for k, v in full.items() if k != types.CLIENT_CAPABILITIES_META_KEY
        },
    }
    problems = []
    for slug, meta in partial.items():
        params = {} if meta is None else {"_meta": meta}
        answer = await probe.link.request("server/discover", params, stamp=False)
        if error_code(answer) != types.INVALID_PARAMS:
            problems.append(f"{slug}: {said(answer)}")
    check = "a request without the _meta envelope is -32602"
    verdicts = [failed(check, section, "; ".join(problems)) if problems else passed(check, section)]
    official = [f"{STATELESS}request-meta-invalid-{slug}" for slug in partial]
    verdicts = cited(verdicts, *official)
    no_info = {k: v for k, v in full.items() if k != types.CLIENT_INFO_META_KEY}
    answer = await probe.link.request("server/discover", {"_meta": no_info}, stamp=False)
    check = "clientInfo is optional"
    verdict = (
        passed(check, section)
        if isinstance(answer.get("result"), dict)
        else failed(check, section, f"server/discover without clientInfo got {said(answer)}")
    )
    return verdicts + cited([verdict], f"{STATELESS}request-meta-client-info-optional")


async def unsupported_version(probe: ProbedServer) -> list[RequirementResult]:
    """A request in a version the server does not speak is -32022 listing what it supports."""
    section = "basic/versioning#version-negotiation"
    check = "an unsupported version is -32022 with the supported list"
    meta = {**envelope(probe.link.era), types.PROTOCOL_VERSION_META_KEY: UNSUPPORTED_VERSION}
    headers = {"mcp-protocol-version": UNSUPPORTED_VERSION, "mcp-method": "server/discover"}
    answer = await probe.link.request("server/discover", {"_meta": meta}, stamp=False, headers=headers)
    error = answer.get("error")
    data = error.get("data") if isinstance(error, dict) else None
    supported = data.get("supported") if isinstance(data, dict) else None
    if error_code(answer) != types.UNSUPPORTED_PROTOCOL_VERSION:
        verdict = failed(check, section, f"server/discover in {UNSUPPORTED_VERSION} got {said(answer)}")
    elif not isinstance(supported, list) or probe.link.era not in supported:
        verdict = failed(
            check, section, f"error.data.supported is {supported!r}, not a list with {probe.link.era}"
        )
    elif not isinstance(data, dict) or data.get("requested") != UNSUPPORTED_VERSION:
        requested = data.get("requested") if isinstance(data, dict) else None
        verdict = failed(
            check, section, f"error.data.requested is {requested!r}, not {UNSUPPORTED_VERSION!r}"
        )
    else:
        verdict = passed(check, section, f"supported: {', '.join(map(str, supported))}")
    return cited([verdict], f"{STATELESS}server-unsupported-version-error")


async def removed_methods(probe: ProbedServer) -> list[RequirementResult]:
    """The methods the era removed, and one that never existed, are -32601 (over stdio, what `initialize`
    gets is up to a server that serves both eras)."""
    section = "basic#responses"
    check = "removed and unknown methods are -32601"
    problems = []
    removed = REMOVED_METHODS if isinstance(probe.link.channel, HttpChannel) else REMOVED_METHODS[1:]
    for method in (*removed, "toolproof/no-such-method"):
        answer = await probe.link.request(method, {})
        if error_code(answer) != types.METHOD_NOT_FOUND:
            problems.append(f"{method}: {said(answer)}")
    verdict = failed(check, section, "; ".join(problems)) if problems else passed(check, section)
    official = [
        f"{STATELESS}http-server-method-not-found-404-{m.lower().replace('/', '-')}" for m in REMOVED_METHODS
    ]
    return cited([verdict], *official, f"{STATELESS}http-server-method-not-found-404")


async def error_ids(probe: ProbedServer) -> list[RequirementResult]:
    """An error response carries the id of the request it answers, whatever its type."""
    section = "basic#responses"
    check = "error responses echo the request id"
    problems = []
    for ident in ("toolproof-ü-7", 2**40 + 3, "42"):
        answer = await probe.link.request("toolproof/no-such-method", {}, request_id=ident)
        sent_back = answer.get("id")
        if sent_back != ident or type(sent_back) is not type(ident):
            problems.append(f"id {ident!r} came back as {sent_back!r}")
    verdict = failed(check, section, "; ".join(problems)) if problems else passed(check, section)
    return cited([verdict], f"{STATELESS}http-server-error-jsonrpc-id")


async def declared_handlers(probe: ProbedServer) -> list[RequirementResult]:
    """What server/discover declares is what the server serves: each listing, -32601 when not declared."""
    section = "server/discover"
    verdicts = []
    for capability, (method, *_rest) in LISTS.items():
        check = f"{capability} declared only if served"
        declared = capability in probe.capabilities
        answer = await probe.link.request(method, {})
        missing = error_code(answer) == types.METHOD_NOT_FOUND
        if declared and "result" not in answer:
            verdicts.append(
                failed(check, section, f"{capability} is declared but {method} got {said(answer)}")
            )
        elif not declared and not missing:
            verdicts.append(
                failed(check, section, f"{capability} is not declared yet {method} got {said(answer)}")
            )
        else:
            verdicts.append(passed(check, section, "declared" if declared else "not declared"))
    official = [
        f"{STATELESS}discover-capabilities-match-handlers",
        f"{STATELESS}server-declares-prompts-in-discover",
    ]
    return cited(verdicts, *official) + await _completions(probe)


async def _completions(probe: ProbedServer) -> list[RequirementResult]:
    """completion/complete answers a completion when completions are declared, and is -32601 otherwise."""
    check = "completions declared only if served"
    prompts = probe.listed.get("prompts") or []
    name = next((str(p["name"]) for p in prompts if p.get("arguments")), "toolproof")
    ref = {"type": "ref/prompt", "name": name}
    answer = await probe.link.request(
        "completion/complete", {"ref": ref, "argument": {"name": "a", "value": ""}}
    )
    result = answer.get("result")
    values = (result.get("completion") or {}).get("values") if isinstance(result, dict) else None
    if "completions" not in probe.capabilities:
        verdict = (
            passed(check, "server/discover", "not declared")
            if error_code(answer) == types.METHOD_NOT_FOUND
            else failed(
                check,
                "server/discover",
                f"completions is not declared yet completion/complete got {said(answer)}",
            )
        )
    elif not isinstance(values, list):
        verdict = failed(
            check, "server/discover", f"completions is declared but completion/complete got {said(answer)}"
        )
    else:
        verdict = passed(check, "server/discover", f"{len(values)} values for {name}")
    # the official completion-complete asks every server: the same requirement where completions are declared
    declared = "completions" in probe.capabilities
    return cited([verdict], *(["completion-complete/completion-complete"] if declared else []))


def _hint_problems(method: str, result: dict[str, Any]) -> list[str]:
    problems = []
    ttl = result.get("ttlMs")
    if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 0:
        problems.append(f"{method}: ttlMs is {ttl!r}, not an integer >= 0")
    if result.get("cacheScope") not in CACHE_SCOPES:
        problems.append(f"{method}: cacheScope is {result.get('cacheScope')!r}, not 'public' or 'private'")
    return problems


async def cache_hints(probe: ProbedServer) -> list[RequirementResult]:
    """SEP-2549: cacheable results carry `ttlMs` (an integer >= 0) and `cacheScope` (public or private)."""
    section = "server/utilities/caching#cacheable-results"
    check = "cacheable results carry ttlMs and cacheScope"
    asks: list[tuple[str, dict[str, Any]]] = [("server/discover", {})]
    if "tools" in probe.capabilities:
        asks.append(("tools/list", {}))
    if "prompts" in probe.capabilities:
        asks.append(("prompts/list", {}))
    if "resources" in probe.capabilities:
        asks += [("resources/list", {}), ("resources/templates/list", {})]
        resources = probe.listed.get("resources") or []
        if resources:
            asks.append(("resources/read", {"uri": str(resources[0]["uri"])}))
    problems = []
    for method, params in asks:
        result = (await probe.link.request(method, params)).get("result")
        if isinstance(result, dict) and result.get("resultType", "complete") == "complete":
            problems += _hint_problems(method, result)
    checked = ", ".join(method for method, _ in asks)
    verdict = failed(check, section, "; ".join(problems[:5])) if problems else passed(check, section, checked)
    official = [
        f"caching/sep-2549-{name}-caching-hints"
        for name in (
            "tools-list",
            "prompts-list",
            "resources-list",
            "resources-templates-list",
            "resources-read",
        )
    ]
    return cited(
        [verdict], *official, "caching/sep-2549-ttl-non-negative", "caching/sep-2549-cache-scope-valid"
    )


async def resource_not_found(probe: ProbedServer) -> list[RequirementResult]:
    """SEP-2164: reading a URI the server does not have is an error (-32602, the URI in its data), never a
    result with empty contents."""
    section = "server/resources#error-handling"
    check = "an unknown resource is -32602 with its uri"
    scenario = "sep-2164-resource-not-found/sep-2164-"
    official = (f"{scenario}no-empty-contents", f"{scenario}error-code", f"{scenario}data-uri")
    if "resources" not in probe.capabilities:
        return cited([skipped(check, section, "the server does not declare resources")], *official)
    answer = await probe.link.request("resources/read", {"uri": MISSING_RESOURCE})
    error = answer.get("error")
    data = error.get("data") if isinstance(error, dict) else None
    if "result" in answer:
        verdict = failed(check, section, f"reading {MISSING_RESOURCE} got {said(answer)}, not an error")
    elif error_code(answer) != types.INVALID_PARAMS:
        verdict = failed(check, section, f"reading {MISSING_RESOURCE} got {said(answer)}, not -32602")
    elif not isinstance(data, dict) or data.get("uri") != MISSING_RESOURCE:
        verdict = failed(check, section, f"the error's data is {data!r}, without uri {MISSING_RESOURCE!r}")
    else:
        verdict = passed(check, section)
    return cited([verdict], *official)


async def deterministic_order(probe: ProbedServer) -> list[RequirementResult]:
    """Consecutive tools/list requests give the same tools in the same order."""
    section = "server/tools#listing-tools"
    check = "tools/list order is deterministic"
    official = ("tools-list/tools-list-deterministic-order",)
    if "tools" not in probe.capabilities:
        return cited([skipped(check, section, "the server does not declare tools")], *official)
    orders = []
    for _ in range(ORDER_LISTINGS):
        result = (await probe.link.request("tools/list", {})).get("result")
        tools = result.get("tools") if isinstance(result, dict) else None
        orders.append([str(t.get("name")) for t in tools or [] if isinstance(t, dict)])
    if any(order != orders[0] for order in orders):
        verdict = failed(
            check,
            section,
            f"orders differ: {orders[0][:5]} then {next(o for o in orders if o != orders[0])[:5]}",
        )
    else:
        verdict = passed(check, section, f"{len(orders[0])} tools, {ORDER_LISTINGS} listings")
    return cited([verdict], *official)
