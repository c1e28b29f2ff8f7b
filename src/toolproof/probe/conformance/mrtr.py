"""SEP-2322 input_required results, checked on the server's own tools and prompts that ask for input: those
the probe may call (read-only with no required argument, or named in --inputs), so asking them again, with
answers, wrong answers or a forged state, risks nothing."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from pydantic import ValidationError

from toolproof.model.result import Status
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
from toolproof.probe.conformance.tool_calls import CALL_TIMEOUT_S
from toolproof.probe.conformance.wire import NoAnswer

SECTION = "basic/patterns/mrtr"
INPUT_REQUIRED = "input_required"
EVERY_CAPABILITY: dict[str, Any] = {"elicitation": {}, "sampling": {}, "roots": {}}
NEEDS = {"elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots"}
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
FILLERS: dict[str, Any] = {"string": "toolproof", "integer": 1, "number": 1, "boolean": True}
MAX_ASKS = 20  # tools asked, at most, and prompts
MAX_ROUNDS = 4  # retries of one request before it must have completed
TAMPERED = "-TAMPERED"
IDS = itertools.count(1)
UNRELATED = "toolproof_unrelated"
SCENARIO = "input-required-result-"
CAPABILITY_CHECK = f"{SCENARIO}capability-check/sep-2322-respect-client-capabilities"
TAMPERED_CHECK = f"{SCENARIO}tampered-state/sep-2322-reject-tampered-state"
# The official scenarios that ask for input of one kind, by what they test it on: their first-round check
# (the input_required result) and their retry checks (the complete result).
KINDS: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "elicitation": ("basic-elicitation", ("elicitation-incomplete",), ("elicitation-complete",)),
    "sampling": ("basic-sampling", ("sampling-incomplete",), ("sampling-complete",)),
    "roots": ("basic-list-roots", ("list-roots-incomplete",), ("list-roots-complete",)),
    "state": ("request-state", ("request-state-incomplete",), ("request-state-complete",)),
    "several": ("multiple-input-requests", ("multiple-inputs-incomplete",), ("multiple-inputs-complete",)),
    "rounds": ("multi-round", ("multi-round-r1",), ("multi-round-r2", "multi-round-r3")),
    "prompt": ("non-tool-request", ("non-tool-incomplete",), ("non-tool-complete",)),
}
RESULT_TYPE = f"{SCENARIO}result-type/sep-2322-result-type-included"
MALFORMED = (
    f"{SCENARIO}validate-input/sep-2322-validate-input-responses",
    f"{SCENARIO}validate-input/sep-2322-error-on-protocol-error",
)
RESULTS: dict[str, type[types.Result]] = {
    "tools/call": types.CallToolResult,
    "prompts/get": types.GetPromptResult,
}


@dataclass(frozen=True)
class Asking:
    """A request of the server's that asks for input: its method and params, and the first result."""

    method: str
    params: dict[str, Any]
    result: dict[str, Any]

    @property
    def name(self) -> str:
        return f"{self.method} {self.params.get('name')}"

    @property
    def requests(self) -> dict[str, Any]:
        found = self.result.get("inputRequests")
        return found if isinstance(found, dict) else {}


def _with(params: dict[str, Any], capabilities: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {**params, "_meta": {types.CLIENT_CAPABILITIES_META_KEY: capabilities}, **more}


def asks(answer: dict[str, Any]) -> bool:
    result = answer.get("result")
    return isinstance(result, dict) and result.get("resultType") == INPUT_REQUIRED


def answer_to(request: Any) -> dict[str, Any]:
    """What a client would answer `request` with: an accepted form holds a value of each field's type."""
    method = str(request.get("method")) if isinstance(request, dict) else ""
    answer = ANSWERS.get(method, {})
    if method != "elicitation/create":
        return answer
    schema = (request.get("params") or {}).get("requestedSchema") or {}
    content = {}
    for key, field in (schema.get("properties") or {}).items():
        if isinstance(field, dict):
            enum = field.get("enum") or [
                c.get("const") for c in field.get("oneOf") or [] if isinstance(c, dict)
            ]
            content[key] = enum[0] if enum else FILLERS.get(str(field.get("type")), "toolproof")
    return {**answer, "content": content}


def answers(requests: dict[str, Any]) -> dict[str, Any]:
    return {key: answer_to(request) for key, request in requests.items()}


async def _ask(probe: ProbedServer, method: str, params: dict[str, Any]) -> dict[str, Any] | None:
    """The answer to one request of a tool or prompt; None (the request abandoned) when none came in time."""
    ident = f"toolproof-mrtr-{next(IDS)}"
    try:
        return await probe.link.request(method, params, request_id=ident, timeout=CALL_TIMEOUT_S)
    except NoAnswer:
        await probe.link.abandon(ident, "toolproof conformance: no answer in time")
        return None


async def _asking(probe: ProbedServer) -> list[Asking]:
    """The tools and prompts the probe may call (at most MAX_ASKS of each) that ask for input when the client
    declares everything."""
    tools = [
        ("tools/call", {"name": str(tool.get("name")), "arguments": arguments})
        for tool in probe.listed.get("tools") or []
        if (arguments := safe_arguments(probe, tool)) is not None
    ]
    prompts = [
        ("prompts/get", {"name": name, "arguments": probe.inputs.prompts.get(name, {})})
        for prompt in probe.listed.get("prompts") or []
        if (name := str(prompt.get("name"))) in probe.inputs.prompts
        or not any(isinstance(a, dict) and a.get("required") for a in prompt.get("arguments") or [])
    ]
    found = []
    for method, params in tools[:MAX_ASKS] + prompts[:MAX_ASKS]:
        answer = await _ask(probe, method, _with(params, EVERY_CAPABILITY))
        if answer is not None and asks(answer):
            found.append(Asking(method, params, answer["result"]))
    return found


async def input_required(probe: ProbedServer) -> list[RequirementResult]:
    """What the tools and prompts that ask for input do: well-formed input_required results, a retry with the
    answers completes, a missing or malformed answer is not taken as given, an unknown one is ignored, input
    is asked only for what the client declared, a tampered requestState is refused; and no other method
    answers with input_required."""
    asking = await _asking(probe)
    verdicts = await _only_where_allowed(probe)
    if not asking:
        reason = "no tool or prompt the probe may call asks for input"
        checks = {
            "input_required results are well-formed": (RESULT_TYPE, *_kinds(set(KINDS), 1)),
            "a retry with the answers completes": _kinds(set(KINDS), 2),
            "a missing answer is asked for again": (
                f"{SCENARIO}missing-input-response/sep-2322-missing-response-rerequests",
            ),
            "unknown answers are ignored": (
                f"{SCENARIO}ignore-extra-params/sep-2322-ignore-unexpected-params",
            ),
            "malformed answers are not taken": MALFORMED,
            "input requested only for declared capabilities": (CAPABILITY_CHECK,),
            "a tampered requestState is rejected": (TAMPERED_CHECK,),
        }
        return verdicts + [
            verdict
            for check, ids in checks.items()
            for verdict in cited([skipped(check, SECTION, reason)], *ids)
        ]
    completes, rounds = await _completes(probe, asking)
    seen = _seen(asking) | ({"rounds"} if rounds > 1 else set())
    return [
        *verdicts,
        *cited([_well_formed(asking)], RESULT_TYPE, *_kinds(seen, 1)),
        *cited([completes], *_kinds(seen, 2)),
        *await _wrong_answers(probe, asking[0]),
        *await _undeclared(probe, asking),
        *await _tampered(
            probe, [each for each in asking if isinstance(each.result.get("requestState"), str)]
        ),
    ]


def _kinds(kinds: set[str], part: int) -> tuple[str, ...]:
    """The official check ids of `part` (1: first round, 2: retries) of the scenarios of `kinds`."""
    return tuple(
        f"{SCENARIO}{KINDS[kind][0]}/sep-2322-{check}"
        for kind in KINDS
        if kind in kinds
        for check in KINDS[kind][part]
    )


def _seen(asking: list[Asking]) -> set[str]:
    """The kinds of asking the server showed (what the official scenarios of each kind test it on)."""
    seen = set()
    for each in asking:
        methods = {str(r.get("method")) for r in each.requests.values() if isinstance(r, dict)}
        seen |= {kind for method, kind in NEEDS.items() if method in methods}
        seen |= {"state"} if isinstance(each.result.get("requestState"), str) else set()
        seen |= {"several"} if len(methods) > 1 else set()
        seen |= {"prompt"} if each.method == "prompts/get" else set()
    return seen


async def _only_where_allowed(probe: ProbedServer) -> list[RequirementResult]:
    check = "input_required only on tools/call, prompts/get and resources/read"
    problems = []
    for capability, method in (
        ("tools", "tools/list"),
        ("prompts", "prompts/list"),
        ("resources", "resources/list"),
    ):
        if capability in probe.capabilities and asks(
            await probe.link.request(method, _with({}, EVERY_CAPABILITY))
        ):
            problems.append(f"{method} answered with an input_required result")
    verdict = failed(check, SECTION, "; ".join(problems)) if problems else passed(check, SECTION)
    return cited([verdict], f"{SCENARIO}unsupported-methods/sep-2322-not-on-unsupported-requests")


def _well_formed(asking: list[Asking]) -> RequirementResult:
    check = "input_required results are well-formed"
    problems = []
    for each in asking:
        try:
            types.InputRequiredResult.model_validate(each.result)
        except ValidationError as invalid:
            error = invalid.errors()[0]
            problems.append(f"{each.name}: {'.'.join(map(str, error['loc']))}: {error['msg']}")
            continue
        unknown = [str(r.get("method")) for r in each.requests.values() if r.get("method") not in ANSWERS]
        if unknown:
            problems.append(f"{each.name} asks for {', '.join(unknown)}, not a client request it may ask")
    if problems:
        return failed(check, SECTION, "; ".join(problems[:3]))
    return passed(check, SECTION, ", ".join(each.name for each in asking[:5]))


async def _completes(probe: ProbedServer, asking: list[Asking]) -> tuple[RequirementResult, int]:
    """Each asking request, retried with an answer to every input request and the requestState echoed, round
    after round, ends in its complete result; the most retries one took."""
    check = "a retry with the answers completes"
    problems = []
    most = 0
    for each in asking:
        result = each.result
        for retries in range(1, MAX_ROUNDS + 1):
            most = max(most, retries)
            requests = result.get("inputRequests") or {}
            state = {"requestState": result["requestState"]} if "requestState" in result else {}
            retry = _with(each.params, EVERY_CAPABILITY, inputResponses=answers(requests), **state)
            answer = await _ask(probe, each.method, retry)
            if answer is None or not isinstance(answer.get("result"), dict):
                problems.append(f"{each.name} retried with the answers got {said(answer or {})}")
                break
            result = answer["result"]
            if not asks(answer):
                problems += _complete_problem(each, result)
                break
        else:
            problems.append(f"{each.name} still asks for input after {MAX_ROUNDS} retries")
    if problems:
        return failed(check, SECTION, "; ".join(problems[:3])), most
    return passed(check, SECTION, ", ".join(each.name for each in asking[:5])), most


def _complete_problem(each: Asking, result: dict[str, Any]) -> list[str]:
    try:
        RESULTS[each.method].model_validate(result)
    except ValidationError as invalid:
        error = invalid.errors()[0]
        where = ".".join(map(str, error["loc"]))
        return [f"{each.name}: its complete result is not valid: {where}: {error['msg']}"]
    return []


def _should(check: str, problems: list[str], checked: str) -> RequirementResult:
    """Passed, with the problems as warnings: what a SHOULD asks."""
    return RequirementResult(check, SECTION, Status.PASS, checked, warnings=tuple(problems))


async def _wrong_answers(probe: ProbedServer, each: Asking) -> list[RequirementResult]:
    """The SHOULDs about answers that do not fit, on one asking request: a missing answer is asked for again,
    unknown answers are ignored, and malformed ones are not taken (an error or the question again)."""
    state = {"requestState": each.result["requestState"]} if "requestState" in each.result else {}
    given = answers(each.requests)
    unrelated = {UNRELATED: ANSWERS["elicitation/create"]}

    async def retry(responses: Any) -> dict[str, Any]:
        params = _with(each.params, EVERY_CAPABILITY, inputResponses=responses, **state)
        return await _ask(probe, each.method, params) or {}

    missing = await retry(unrelated)
    problems = (
        []
        if asks(missing)
        else [f"{each.name} without its answers got {said(missing)}, not the question again"]
    )
    verdicts = cited(
        [_should("a missing answer is asked for again", problems, each.name)],
        f"{SCENARIO}missing-input-response/sep-2322-missing-response-rerequests",
    )
    extra = await retry({**given, **unrelated})
    problems = (
        [f"{each.name} with an unknown answer as well got {said(extra)}"]
        if "error" in extra or not extra
        else []
    )
    verdicts += cited(
        [_should("unknown answers are ignored", problems, each.name)],
        f"{SCENARIO}ignore-extra-params/sep-2322-ignore-unexpected-params",
    )
    problems = []
    for what, responses in (("a number as an answer", dict.fromkeys(given, 12345)), ("null answers", None)):
        made = await retry(responses)
        if isinstance(made.get("result"), dict) and not asks(made):
            problems.append(f"{each.name} with {what} completed: {said(made)}")
    return verdicts + cited([_should("malformed answers are not taken", problems, each.name)], *MALFORMED)


async def _undeclared(probe: ProbedServer, asking: list[Asking]) -> list[RequirementResult]:
    """Called declaring no capability, a request that asks for input completes without asking, or is -32021
    naming what it needs."""
    check = "input requested only for declared capabilities"
    problems = []
    for each in asking:
        answer = await _ask(probe, each.method, _with(each.params, {})) or {}
        error = answer.get("error")
        if asks(answer):
            asked = [
                str(r.get("method"))
                for r in (answer["result"].get("inputRequests") or {}).values()
                if isinstance(r, dict)
            ]
            problems.append(f"{each.name}, called declaring no capability, asked for {', '.join(asked)}")
        elif isinstance(answer.get("result"), dict):
            continue
        elif error_code(answer) != types.MISSING_REQUIRED_CLIENT_CAPABILITY:
            problems.append(f"{each.name}, called declaring no capability, got {said(answer)}, not -32021")
        else:
            data = error.get("data") if isinstance(error, dict) else None
            required = data.get("requiredCapabilities") if isinstance(data, dict) else None
            if not isinstance(required, dict) or not required:
                problems.append(f"{each.name}: -32021 without a requiredCapabilities object: {said(answer)}")
    verdict = (
        failed(check, SECTION, "; ".join(problems[:3]))
        if problems
        else passed(check, SECTION, f"{len(asking)} asked")
    )
    return cited([verdict], CAPABILITY_CHECK, f"{STATELESS}server-rejects-undeclared-capability")


async def _tampered(probe: ProbedServer, stateful: list[Asking]) -> list[RequirementResult]:
    check = "a tampered requestState is rejected"
    if not stateful:
        reason = "no request that asks for input carries a requestState"
        return cited([skipped(check, SECTION, reason)], TAMPERED_CHECK)
    each = stateful[0]
    state = str(each.result["requestState"]) + TAMPERED
    retry = _with(each.params, EVERY_CAPABILITY, inputResponses=answers(each.requests), requestState=state)
    answer = await _ask(probe, each.method, retry) or {}
    if "error" in answer:
        verdict = passed(check, SECTION, said(answer))
    else:
        verdict = failed(
            check, SECTION, f"{each.name} with its requestState altered got {said(answer)}, not an error"
        )
    return cited([verdict], TAMPERED_CHECK)
