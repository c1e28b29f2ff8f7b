"""The tasks extension (SEP-2663) on the server's own tools: a tool the probe may call is called declaring the
extension, and each task it answers with is followed with `tasks/get` to its end (its input requests
answered with `tasks/update` as a client would), cancelled, and asked for with a wrong `Mcp-Name`. The
gates (declared, -32021 without the client's extension, -32602 for an unknown task, -32601 for the removed
methods) need no task."""

from __future__ import annotations

import itertools
import re
import time
from dataclasses import dataclass, field, replace
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.inbound import MCP_NAME_HEADER, encode_header_value
from pydantic import ValidationError

from toolproof.mcp.http import HttpChannel
from toolproof.mcp.tasks import INPUT_REQUESTS, STATUSES, TASKS_EXTENSION, TERMINAL, is_task
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
from toolproof.probe.conformance.extensions import declared, named, served_only_if_declared, with_extension
from toolproof.probe.conformance.mrtr import ANSWERS, EVERY_CAPABILITY, INPUT_REQUIRED
from toolproof.probe.conformance.tool_calls import CALL_TIMEOUT_S
from toolproof.probe.conformance.wire import Message, NoAnswer, routing_headers

SECTION = "seps/2663-tasks-extension"
NO_SUCH_TASK = "toolproof-no-such-task"
TASK_METHODS: dict[str, dict[str, Any]] = {
    "tasks/get": {"taskId": NO_SUCH_TASK},
    "tasks/update": {"taskId": NO_SUCH_TASK, "inputResponses": {}},
    "tasks/cancel": {"taskId": NO_SUCH_TASK},
}
REMOVED = ("tasks/result", "tasks/list")
CALLS = itertools.count(1)
MAX_TOOLS = 5
FOLLOW_S = 15.0  # a task not ended by then is cancelled, and its end not judged
MIN_POLL_S, MAX_POLL_S = 0.05, 1.0
ISO_8601 = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?")
ENVELOPE = ("taskId", "status", "result", "error", "inputRequests")  # not in an ack
CREATED_NOT = ("result", "error", "task", "ttl", "pollInterval")
CARRIED = ("requestState", "inputRequests")  # of an input_required round, not of the task it leads to
RELATED_TASK = "io.modelcontextprotocol/related-task"
CREATED = "a task-augmented call returns a flat CreateTaskResult"
POLLED = "tasks/get reports the task until it ends"
ENDED = "an ended task carries its result or its error"
UNDECLARED = "a task is made only for a client with the extension"
INPUTS = "input requests are answered with tasks/update"
COMPOSED = "input asked before a task stays out of it"
CANCELLED = "tasks/cancel acks with an empty result"
ROUTED = "tasks/get is routed by Mcp-Name"
NOTIFIED = "task status notifications are well-formed"
GATES = ("an unknown task is -32602", "removed tasks methods are -32601")
TASK_CHECKS = (CREATED, POLLED, ENDED, UNDECLARED, INPUTS, COMPOSED, CANCELLED, ROUTED)


@dataclass
class Followed:
    """One task: the tool that made it (and its arguments), its CreateTaskResult, every tasks/get answer in
    order, what its input requests showed, and the input_required result (SEP-2322) that came before it."""

    tool: str
    arguments: dict[str, Any]
    created: dict[str, Any]
    polls: list[Message] = field(default_factory=list)
    input_problems: list[str] = field(default_factory=list)
    inputs: int = 0
    partial: bool = False
    asked_first: dict[str, Any] | None = None  # the input_required result before the task

    @property
    def task_id(self) -> str:
        return str(self.created.get("taskId"))

    @property
    def last(self) -> dict[str, Any]:
        results = [p["result"] for p in self.polls if isinstance(p.get("result"), dict)]
        return results[-1] if results else {}


def _status(task: dict[str, Any]) -> str:
    """The task's status, or "" when it has none that is a string."""
    status = task.get("status")
    return status if isinstance(status, str) else ""


def _capabilities() -> dict[str, Any]:
    return {types.CLIENT_CAPABILITIES_META_KEY: {**EVERY_CAPABILITY, "extensions": {TASKS_EXTENSION: {}}}}


async def _task_request(probe: ProbedServer, method: str, task_id: str, **more: Any) -> Message:
    """A tasks/* request for `task_id` from a client that declared the extension, with `Mcp-Name` set to it
    as the extension asks over HTTP."""
    params = {"taskId": task_id, **more, "_meta": _capabilities()}
    headers = {
        **routing_headers(probe.link.era, method, params),
        MCP_NAME_HEADER: encode_header_value(task_id),
    }
    return await probe.link.request(method, params, headers=headers)


async def tasks(probe: ProbedServer) -> list[RequirementResult]:
    """The gates, then every check on the tasks the server's own tools make."""
    return named(await _tasks(probe))


async def _tasks(probe: ProbedServer) -> list[RequirementResult]:
    verdicts = await _declared_verdicts(probe)
    if not declared(probe, TASKS_EXTENSION):
        return verdicts + _skipped((*GATES, *TASK_CHECKS, NOTIFIED), f"{TASKS_EXTENSION} is not declared")
    verdicts += await _unknown_and_removed(probe)
    followed = await _make_tasks(probe)
    if not followed:
        reason = "no tool the probe may call answered with a task (name one in --inputs to check tasks)"
        return verdicts + _skipped(TASK_CHECKS, reason) + [_notifications(probe)]
    return [
        *verdicts,
        *_judged(probe, followed),
        *await _cancel(probe, followed),
        *await _routing(probe, followed),
        _notifications(probe),
    ]


def _skipped(checks: tuple[str, ...], reason: str) -> list[RequirementResult]:
    return [skipped(name, SECTION, reason) for name in checks]


def _notifications(probe: ProbedServer) -> RequirementResult:
    """The notifications/tasks the server sent name a task and a known status."""
    check = NOTIFIED
    sent = [m.get("params") for m in probe.link.seen if m.get("method") == "notifications/tasks"]
    problems = [
        f"notifications/tasks {params!r:.80}"
        for params in sent
        if not isinstance(params, dict)
        or not isinstance(params.get("taskId"), str)
        or _status(params) not in STATUSES
    ]
    if problems:
        return failed(check, SECTION, "; ".join(problems[:3]))
    if not sent:
        return skipped(check, SECTION, "the server sent none")
    return passed(check, SECTION, f"{len(sent)} received")


async def _declared_verdicts(probe: ProbedServer) -> list[RequirementResult]:
    """Tasks are served only when the extension is declared (not in the old `capabilities.tasks` slot),
    and refused with -32021 to a client that did not declare it."""
    check = "tasks served only with the extension declared"
    is_declared = declared(probe, TASKS_EXTENSION)
    params = {**TASK_METHODS["tasks/get"], "_meta": with_extension(TASKS_EXTENSION)}
    answer = await probe.link.request("tasks/get", params)
    served = error_code(answer) != types.METHOD_NOT_FOUND
    if "tasks" in probe.capabilities:
        verdict = failed(check, SECTION, "capabilities.tasks is declared: tasks live under extensions")
    else:
        verdict = served_only_if_declared(
            check, SECTION, TASKS_EXTENSION, is_declared, served, "tasks/get", answer
        )
    verdicts = [verdict]
    check = "tasks methods need the client's extension (-32021)"
    if not is_declared:
        return [*verdicts, skipped(check, SECTION, f"{TASKS_EXTENSION} is not declared")]
    problems = []
    for method, asked in TASK_METHODS.items():
        answer = await probe.link.request(method, asked)
        if error_code(answer) != types.MISSING_REQUIRED_CLIENT_CAPABILITY:
            problems.append(f"{method}: {said(answer)}")
    verdict = failed(check, SECTION, "; ".join(problems)) if problems else passed(check, SECTION)
    return [*verdicts, verdict]


async def _unknown_and_removed(probe: ProbedServer) -> list[RequirementResult]:
    check = GATES[0]
    answer = await _task_request(probe, "tasks/get", NO_SUCH_TASK)
    verdict = (
        passed(check, SECTION)
        if error_code(answer) == types.INVALID_PARAMS
        else failed(check, SECTION, f"tasks/get for a task that does not exist got {said(answer)}")
    )
    verdicts = [verdict]
    check = GATES[1]
    problems = []
    for method in REMOVED:
        params = {"taskId": NO_SUCH_TASK} if method == "tasks/result" else {}
        answer = await probe.link.request(method, {**params, "_meta": _capabilities()})
        if error_code(answer) != types.METHOD_NOT_FOUND:
            problems.append(f"{method} got {said(answer)}")
    verdict = failed(check, SECTION, "; ".join(problems)) if problems else passed(check, SECTION)
    return [*verdicts, verdict]


async def _make_tasks(probe: ProbedServer) -> list[Followed]:
    """Call each tool the probe may call (at most MAX_TOOLS; not one that left its call unanswered) declaring
    the extension; follow each task."""
    followed = []
    tried = 0
    for tool in probe.listed.get("tools") or []:
        name = str(tool.get("name"))
        arguments = safe_arguments(probe, tool)
        if arguments is None or name in probe.unanswered or tried >= MAX_TOOLS:
            continue
        tried += 1
        call = {"name": name, "arguments": arguments, "_meta": _capabilities()}
        result = await _call(probe, call)
        first = None
        if isinstance(result, dict) and result.get("resultType") == INPUT_REQUIRED:  # input before a task
            first = result
            retry = {**call, "inputResponses": _answers(result.get("inputRequests"))}
            if isinstance(result.get("requestState"), str):
                retry["requestState"] = result["requestState"]
            result = await _call(probe, retry)
        if isinstance(result, dict) and is_task(result):
            task = Followed(name, arguments, result, asked_first=first)
            await _follow(probe, task)
            followed.append(task)
    return followed


async def _call(probe: ProbedServer, params: dict[str, Any]) -> Any:
    """The result of a tools/call, or None when it is an error or takes longer than the probe waits for a
    tool (the call is then abandoned and the tool left out)."""
    ident = f"toolproof-task-call-{next(CALLS)}"
    try:
        answer = await probe.link.request("tools/call", params, request_id=ident, timeout=CALL_TIMEOUT_S)
    except NoAnswer:
        await probe.link.abandon(ident, "toolproof conformance: no answer in time")
        probe.unanswered.append(str(params["name"]))
        return None
    return answer.get("result")


def _answers(requests: Any) -> dict[str, Any]:
    """The answer a client that accepts everything gives each input request."""
    if not isinstance(requests, dict):
        return {}
    return {
        key: ANSWERS.get(str(request.get("method")), {})
        for key, request in requests.items()
        if isinstance(request, dict)
    }


async def _follow(probe: ProbedServer, task: Followed) -> None:
    """tasks/get until the task ends (and once more after), answering its input requests one key at a time
    with tasks/update; a task still running after FOLLOW_S is cancelled."""
    if not isinstance(task.created.get("taskId"), str):
        return
    interval = task.created.get("pollIntervalMs")
    pause = min(max((interval if isinstance(interval, int) else 200) / 1000, MIN_POLL_S), MAX_POLL_S)
    deadline = time.monotonic() + FOLLOW_S
    while time.monotonic() < deadline:
        answer = await _task_request(probe, "tasks/get", task.task_id)
        task.polls.append(answer)
        result = answer.get("result")
        if not isinstance(result, dict) or _status(result) in TERMINAL:
            break
        if result.get("status") == INPUT_REQUIRED:
            await _answer_one(probe, task, result)
        await anyio.sleep(pause)
    else:
        await _task_request(probe, "tasks/cancel", task.task_id)
        return
    if task.polls and isinstance(task.polls[-1].get("result"), dict):
        task.polls.append(await _task_request(probe, "tasks/get", task.task_id))  # still there after its end


async def _answer_one(probe: ProbedServer, task: Followed, result: dict[str, Any]) -> None:
    """Answer the first pending input request; with more pending, the next tasks/get must still ask for the
    others (and no longer for this one)."""
    requests = result.get("inputRequests")
    try:
        INPUT_REQUESTS.validate_python(requests)
    except ValidationError as invalid:
        task.input_problems.append(
            f"{task.tool}: inputRequests are not input requests: {invalid.errors()[0]['msg']}"
        )
        return
    if not requests:
        task.input_problems.append(f"{task.tool}: input_required without inputRequests")
        return
    key = next(iter(requests))
    task.inputs += 1
    ack = await _task_request(
        probe, "tasks/update", task.task_id, inputResponses=_answers({key: requests[key]})
    )
    problem = _ack_problem(ack)
    if problem:
        task.input_problems.append(f"{task.tool}: tasks/update {problem}")
    if len(requests) > 1:
        task.partial = True
        after = (await _task_request(probe, "tasks/get", task.task_id)).get("result")
        asked = after.get("inputRequests") if isinstance(after, dict) else None
        pending = asked if isinstance(asked, dict) else {}
        if not isinstance(after, dict) or after.get("status") != INPUT_REQUIRED:
            task.input_problems.append(
                f"{task.tool}: one of {len(requests)} inputs answered, the task left input_required"
            )
        elif key in pending or not set(requests) - {key} <= set(pending):
            task.input_problems.append(
                f"{task.tool}: after answering {key}, inputRequests are {sorted(pending)}"
            )


def _ack_problem(answer: Message) -> str:
    result = answer.get("result")
    if not isinstance(result, dict):
        return f"got {said(answer)}"
    if result.get("resultType", "complete") != "complete":
        return f"acked with resultType {result.get('resultType')!r}"
    if extra := [key for key in ENVELOPE if key in result]:
        return f"acked with task fields {', '.join(extra)}"
    return ""


def _created_problems(task: Followed) -> list[str]:
    created, name = task.created, task.tool
    unwanted = CREATED_NOT if task.asked_first is not None else (*CREATED_NOT, *CARRIED)  # else: COMPOSED's
    problems = [f"{name}: CreateTaskResult carries {key}" for key in unwanted if key in created]
    if not isinstance(created.get("taskId"), str) or not created["taskId"]:
        problems.append(f"{name}: CreateTaskResult has no taskId")
    if _status(created) not in STATUSES:
        problems.append(f"{name}: CreateTaskResult status {created.get('status')!r}")
    for stamp in ("createdAt", "lastUpdatedAt"):
        if not isinstance(created.get(stamp), str) or not ISO_8601.match(created[stamp]):
            problems.append(f"{name}: {stamp} {created.get(stamp)!r} is not an ISO 8601 time")
    ttl = created.get("ttlMs", "absent")
    if ttl is not None and (not isinstance(ttl, int) or isinstance(ttl, bool) or ttl <= 0):
        problems.append(f"{name}: ttlMs {ttl!r} is neither null nor a positive integer")
    poll = created.get("pollIntervalMs")
    if poll is not None and (not isinstance(poll, int) or isinstance(poll, bool) or poll <= 0):
        problems.append(f"{name}: pollIntervalMs {poll!r} is not a positive integer")
    return problems


def _poll_problems(task: Followed) -> list[str]:
    """What the tasks/get answers show wrong: an error, another taskId, an unknown status, a terminal status
    left, a requestState, or a resultType other than complete."""
    problems, ended = [], ""
    for number, answer in enumerate(task.polls, 1):
        result = answer.get("result")
        where = f"{task.tool}: tasks/get #{number}"
        if not isinstance(result, dict):
            problems.append(f"{where} got {said(answer)}")
            continue
        status = _status(result)
        if result.get("taskId") != task.task_id:
            problems.append(f"{where} is for task {result.get('taskId')!r}")
        if status not in STATUSES:
            problems.append(f"{where} has status {result.get('status')!r}")
        if ended and status != ended:
            problems.append(f"{where} is {status!r} after {ended!r}")
        ended = ended or (str(status) if status in TERMINAL else "")
        if "requestState" in result:
            problems.append(f"{where} carries requestState")
        if result.get("resultType", "complete") != "complete":
            problems.append(f"{where} has resultType {result.get('resultType')!r}")
    return problems


def _end_problems(task: Followed) -> list[str]:
    """A completed task carries its result (content, no related-task _meta); a failed one a JSON-RPC error."""
    last, name = task.last, task.tool
    status = _status(last)
    if status == "completed":
        result = last.get("result")
        if (
            not isinstance(result, dict)
            or not isinstance(result.get("content"), list)
            or not result["content"]
        ):
            return [f"{name}: completed without a result with content"]
        if RELATED_TASK in (result.get("_meta") or {}):
            return [f"{name}: its result carries the removed {RELATED_TASK} _meta"]
    if status == "failed":
        error = last.get("error")
        if (
            not isinstance(error, dict)
            or not isinstance(error.get("code"), int)
            or not isinstance(error.get("message"), str)
        ):
            return [f"{name}: failed without an error with code and message"]
        if "result" in last:
            return [f"{name}: failed with a result"]
    return []


def _judged(probe: ProbedServer, followed: list[Followed]) -> list[RequirementResult]:
    names = ", ".join(sorted({task.tool for task in followed}))
    made = [task for task in followed if task.polls]

    def verdict(check: str, problems: list[str], note: str = names) -> RequirementResult:
        return failed(check, SECTION, "; ".join(problems[:3])) if problems else passed(check, SECTION, note)

    created = [p for task in followed for p in _created_problems(task)]
    polls = [p for task in made for p in _poll_problems(task)]
    ends = [p for task in made for p in _end_problems(task)]
    ended = sorted({f"{t.tool}: {t.last.get('status')}" for t in made if _status(t.last) in TERMINAL})
    verdicts = [
        verdict(CREATED, created),
        verdict(POLLED, polls),
        verdict(ENDED, ends, ", ".join(ended)) if ended else skipped(ENDED, SECTION, "no task ended in time"),
        _undeclared(probe, followed),
    ]
    asked = [task for task in made if task.inputs]
    if asked:
        problems = [p for task in asked for p in task.input_problems]
        ends = [
            f"{t.tool} ended {t.last.get('status')!r}" for t in asked if t.last.get("status") != "completed"
        ]
        partial = " (one at a time)" if any(task.partial for task in asked) else ""
        input_verdict = verdict(INPUTS, problems + ends, f"{names}{partial}")
    else:
        input_verdict = skipped(INPUTS, SECTION, f"no task asked for input ({names})")
    verdicts.append(input_verdict)
    composed = [task for task in followed if task.asked_first is not None]
    if composed:
        problems = [
            f"{t.tool}: its input_required result carries {key}"
            for t in composed
            for key in ("taskId", "status")
            if key in (t.asked_first or {})
        ]
        problems += [
            f"{t.tool}: its task carries {key}" for t in composed for key in CARRIED if key in t.created
        ]
        composed_verdict = verdict(COMPOSED, problems, ", ".join(t.tool for t in composed))
    else:
        composed_verdict = skipped(COMPOSED, SECTION, "no tool asked for input before making a task")
    return [*verdicts, composed_verdict]


def _undeclared(probe: ProbedServer, followed: list[Followed]) -> RequirementResult:
    """A tool that made a task, called (by the probe's tools/call step) without the extension, gets no task:
    its result, an error of its own, or -32021, which SHOULD name the extension (a warning otherwise)."""
    problems, warnings, seen = [], [], []
    for name in sorted({task.tool for task in followed}):
        answer = probe.called.get(name)
        if answer is None:
            continue
        seen.append(name)
        result, error = answer.get("result"), answer.get("error")
        if isinstance(result, dict) and is_task(result):
            problems.append(f"{name} made a task for a client without the extension")
        elif isinstance(error, dict) and error.get("code") == types.MISSING_REQUIRED_CLIENT_CAPABILITY:
            data = error.get("data")
            required = data.get("requiredCapabilities") if isinstance(data, dict) else None
            extensions = required.get("extensions") if isinstance(required, dict) else None
            if not isinstance(extensions, dict) or TASKS_EXTENSION not in extensions:
                warnings.append(
                    f"{name}: -32021 without requiredCapabilities.extensions naming {TASKS_EXTENSION}"
                )
    if problems:
        return failed(UNDECLARED, SECTION, "; ".join(problems[:3]))
    if not seen:
        return skipped(UNDECLARED, SECTION, "the tools that made tasks were not called without it")
    return replace(passed(UNDECLARED, SECTION, ", ".join(seen)), warnings=tuple(warnings[:3]))


async def _cancel(probe: ProbedServer, followed: list[Followed]) -> list[RequirementResult]:
    """tasks/cancel acks with an empty result: for a new task of the same tool, and again for a task that
    has ended (idempotent)."""
    check = CANCELLED
    task = followed[0]
    problems = []
    call = {"name": task.tool, "arguments": task.arguments, "_meta": _capabilities()}
    fresh = await _call(probe, call)
    if isinstance(fresh, dict) and is_task(fresh) and isinstance(fresh.get("taskId"), str):
        problem = _ack_problem(await _task_request(probe, "tasks/cancel", fresh["taskId"]))
        problems += [f"cancelling a new {task.tool} task: {problem}"] if problem else []
    ended = next((t for t in followed if _status(t.last) in TERMINAL), None)
    if ended is not None and (
        problem := _ack_problem(await _task_request(probe, "tasks/cancel", ended.task_id))
    ):
        problems.append(f"cancelling an ended {ended.tool} task: {problem}")
    if problems:
        return [failed(check, SECTION, "; ".join(problems))]
    return [passed(check, SECTION, task.tool)]


async def _routing(probe: ProbedServer, followed: list[Followed]) -> list[RequirementResult]:
    """Over HTTP, tasks/get is routed by Mcp-Name: the task's id is accepted, another refused with -32020."""
    check = ROUTED
    if not isinstance(probe.link.channel, HttpChannel):
        return [skipped(check, SECTION, "headers are sent over HTTP only")]
    task = next((each for each in followed if each.polls), None)
    if task is None:
        return [skipped(check, SECTION, "no task could be asked for")]
    params = {"taskId": task.task_id, "_meta": _capabilities()}
    wrong = {**routing_headers(probe.link.era, "tasks/get", params), MCP_NAME_HEADER: NO_SUCH_TASK}
    answer = await probe.link.request("tasks/get", params, headers=wrong)
    if error_code(answer) != types.HEADER_MISMATCH:
        message = (
            f"tasks/get with Mcp-Name {NO_SUCH_TASK} for task {task.task_id} got {said(answer)}, not -32020"
        )
        return [failed(check, SECTION, message)]
    if not isinstance((await _task_request(probe, "tasks/get", task.task_id)).get("result"), dict):
        return [failed(check, SECTION, "tasks/get with the matching Mcp-Name got no result")]
    return [passed(check, SECTION)]
