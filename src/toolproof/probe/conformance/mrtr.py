"""SEP-2322 input_required results, checked on a tool of the server's own that asks for input: one that says
it is read-only and needs no argument, so asking it twice (and once with a forged state) risks nothing."""

from __future__ import annotations

from typing import Any

import mcp_types as types

from toolproof.probe.conformance.checks import (
    ProbedServer,
    RequirementResult,
    error_code,
    failed,
    passed,
    safe_arguments,
    said,
    skipped,
)
from toolproof.probe.conformance.stateless import STATELESS, cited

SECTION = "basic/patterns/mrtr"
INPUT_REQUIRED = "input_required"
EVERY_CAPABILITY: dict[str, Any] = {"elicitation": {}, "sampling": {}, "roots": {}}
ANSWERS: dict[str, dict[str, Any]] = {
    "elicitation/create": {"action": "accept", "content": {}},
    "sampling/createMessage": {
        "role": "assistant",
        "content": {"type": "text", "text": "ok"},
        "model": "toolproof",
        "stopReason": "endTurn",
    },
    "roots/list": {"roots": []},
}
TAMPERED = "-TAMPERED"
CAPABILITY_CHECK = "input-required-result-capability-check/sep-2322-respect-client-capabilities"
TAMPERED_CHECK = "input-required-result-tampered-state/sep-2322-reject-tampered-state"


def _call(name: str, capabilities: dict[str, Any], **more: Any) -> dict[str, Any]:
    meta = {types.CLIENT_CAPABILITIES_META_KEY: capabilities}
    return {"name": name, "arguments": {}, "_meta": meta, **more}


async def input_required(probe: ProbedServer) -> list[RequirementResult]:
    """A tool that asks for input asks only for what the client declared (-32021 otherwise), and refuses a
    requestState that was tampered with."""
    capability_check = "input requested only for declared capabilities"
    tampered_check = "a tampered requestState is rejected"
    asking: tuple[str, dict[str, Any]] | None = None
    for tool in probe.listed.get("tools") or []:
        if safe_arguments(probe, tool) == {}:  # read-only, no argument: asking twice risks nothing
            answer = await probe.link.request("tools/call", _call(str(tool["name"]), EVERY_CAPABILITY))
            result = answer.get("result")
            if isinstance(result, dict) and result.get("resultType") == INPUT_REQUIRED:
                asking = (str(tool["name"]), result)
                break
    if asking is None:
        reason = "no read-only tool without required arguments asks for input"
        return [
            *cited([skipped(capability_check, SECTION, reason)], CAPABILITY_CHECK),
            *cited([skipped(tampered_check, SECTION, reason)], TAMPERED_CHECK),
        ]
    name, result = asking
    return [
        *await _undeclared(probe, name, capability_check),
        *await _tampered(probe, name, result, tampered_check),
    ]


async def _undeclared(probe: ProbedServer, name: str, check: str) -> list[RequirementResult]:
    answer = await probe.link.request("tools/call", _call(name, {}))
    result = answer.get("result")
    error = answer.get("error")
    if isinstance(result, dict) and result.get("resultType") == INPUT_REQUIRED:
        asked = [
            str(r.get("method")) for r in (result.get("inputRequests") or {}).values() if isinstance(r, dict)
        ]
        verdict = failed(
            check, SECTION, f"{name}, called declaring no capability, asked for {', '.join(asked)}"
        )
    elif isinstance(result, dict):
        verdict = passed(check, SECTION, f"{name} completed without asking")
    elif error_code(answer) != types.MISSING_REQUIRED_CLIENT_CAPABILITY:
        verdict = failed(
            check, SECTION, f"{name}, called declaring no capability, got {said(answer)}, not -32021"
        )
    else:
        data = error.get("data") if isinstance(error, dict) else None
        required = data.get("requiredCapabilities") if isinstance(data, dict) else None
        if isinstance(required, dict) and required:
            verdict = passed(check, SECTION, f"-32021 requiring {', '.join(required)}")
        else:
            verdict = failed(check, SECTION, f"-32021 without a requiredCapabilities object: {said(answer)}")
    return cited([verdict], CAPABILITY_CHECK, f"{STATELESS}server-rejects-undeclared-capability")


async def _tampered(
    probe: ProbedServer, name: str, result: dict[str, Any], check: str
) -> list[RequirementResult]:
    state = result.get("requestState")
    if not isinstance(state, str):
        return cited(
            [skipped(check, SECTION, f"{name} asks for input without a requestState")], TAMPERED_CHECK
        )
    requests = result.get("inputRequests") or {}
    responses = {
        key: ANSWERS.get(str(request.get("method")), {})
        for key, request in requests.items()
        if isinstance(request, dict)
    }
    retry = _call(name, EVERY_CAPABILITY, inputResponses=responses, requestState=state + TAMPERED)
    answer = await probe.link.request("tools/call", retry)
    if "error" in answer:
        verdict = passed(check, SECTION, said(answer))
    else:
        verdict = failed(
            check, SECTION, f"{name} with its requestState altered got {said(answer)}, not an error"
        )
    return cited([verdict], TAMPERED_CHECK)
