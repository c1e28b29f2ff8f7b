"""`fuzz`: send each tool the hostile inputs of `fuzz_inputs`, classify every answer, shrink each distinct
crash once.

Classes: passed (a result), rejected (-32602, any error response to arguments that are not an object, or an
isError explaining the bad input: correct behaviour),
crash, timeout, protocol error (findings), skipped (an input JSON cannot carry: never sent). Crashes of a
tool that fail the same way (`signature`: the class and the message with its numbers blotted out) are
shrunk once: a tool that fails every call costs its inputs and one shrink. Tools are spread over `jobs`
workers, each with its own server, and a worker left more than one of the `jobs` sends that many of its
tool's inputs at once (a crash or hang is still blamed on its own input); results are reported in tool order
whatever the scheduling, so a seed always prints the same results. A `max_time_s` budget stops between
calls: the tool under way keeps what it found, the tools not started are reported as not reached.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from toolproof.mcp.spec import ConnectSpec
from toolproof.model.result import CaseResult, Failure, FailureKind, Status, Step
from toolproof.probe.cases import server_block
from toolproof.probe.concurrent import Call, call_together
from toolproof.probe.connection import Prober
from toolproof.probe.fuzz_inputs import FuzzInput, fuzz_inputs
from toolproof.probe.outcome import CallOutcome
from toolproof.probe.shrink import shrink
from toolproof.probe.tools import Tool, input_schema, tool_name
from toolproof.probe.verdicts import (
    FINDINGS,
    CallClass,
    call_step,
    classify,
    excerpt,
    internal_error,
    result_text,
    verdict_message,
)

SHRINK_BUDGET = 100
"""Calls spent minimising one crash."""
HANG_LIMIT = 3
"""Timeouts in a row after which a tool's remaining inputs are not sent (each would wait the full timeout)."""
NOT_JSON = "JSON cannot carry this input"
HUNG = f"not sent after {HANG_LIMIT} timeouts in a row"
OUT_OF_TIME = "not sent: --max-time ran out"
SIGNATURE_CHARS = 2000


@dataclass(frozen=True)
class FuzzCall:
    """One input sent (or skipped) and its class; `shrunk` is the minimised input of a crash."""

    tool: str
    input: FuzzInput
    verdict: CallClass
    outcome: CallOutcome | None
    shrunk: Any = None
    shrink_calls: int = 0
    unsent: str = ""  # why a skipped input was not sent


@dataclass(frozen=True)
class FuzzPlan:
    """How to fuzz: the seed and inputs per tool, workers, calls per shrink, and the time budget (None:
    none) in seconds from `fuzz_tools`' start."""

    seed: int
    runs: int
    jobs: int = 1
    shrink_budget: int = SHRINK_BUDGET
    max_time_s: float | None = None


class Clock:
    """Whether a fuzz run's time budget has run out (never, without one)."""

    def __init__(self, max_time_s: float | None) -> None:
        self._deadline = None if max_time_s is None else time.monotonic() + max_time_s

    def out(self) -> bool:
        return self._deadline is not None and time.monotonic() >= self._deadline


def signature(outcome: CallOutcome, verdict: CallClass) -> str:
    """What tells two failures of one tool apart: the class and the whole message (the failure's, or the
    result's text), numbers and hex blotted out, so sizes, ids, addresses or an exit code in it do not make
    a failure new."""
    said = outcome.failure.message if outcome.failure is not None else result_text(outcome.result or {})
    text = re.sub(r"0x[0-9a-f]+|\d+", "#", said[:SIGNATURE_CHARS].lower())
    return f"{verdict.value}: {' '.join(text.split())}"


def fuzz_verdict(arguments: Any, outcome: CallOutcome) -> CallClass:
    """The class of the answer to a fuzz input: never valid, and malformed when not a JSON object."""
    return classify(outcome, valid_input=False, malformed=not isinstance(arguments, dict))


async def fuzz_tool(
    prober: Prober,
    tool: Tool,
    plan: FuzzPlan,
    clock: Clock | None = None,
    probes: list[FuzzCall] | None = None,
    in_flight: int = 1,
) -> list[FuzzCall]:
    """Every input for one tool, in order; the first crash of each signature is shrunk before the next
    input, later ones share its minimised input; after HANG_LIMIT timeouts in a row, or once `clock` runs
    out, the remaining inputs are not sent. With `in_flight` above 1 the inputs are first sent that many at
    once (`concurrent.call_together`); the walk in order then uses the answers that are surely their input's
    and sends the others alone, so every class is the one-at-a-time class. `probes` (default: a new list) is
    filled as the answers come, so a fuzz stopped early keeps them (a crash stopped before or while
    shrinking, unshrunk)."""
    clock = clock or Clock(None)
    name = tool_name(tool)
    probes = [] if probes is None else probes
    items = list(fuzz_inputs(input_schema(tool), seed=plan.seed, tool=name, runs=plan.runs))
    sendable = [index for index, item in enumerate(items) if item.sendable]
    answered: dict[int, CallOutcome] = {}  # input index -> its answer from the calls sent together

    def early(place: int, outcome: CallOutcome) -> None:
        answered[sendable[place]] = outcome

    calls = [Call(name, items[index].arguments) for index in sendable]
    start = len(probes)  # probes[start + i] is input i's
    try:
        await call_together(prober, calls, in_flight, early, stop=clock.out)
        await _walk(prober, name, items, answered, plan, clock, probes)
    except BaseException:  # cancelled (a stop signal): answers not walked yet stand, crashes unshrunk
        for index in sorted(answered):
            if index >= len(probes) - start:
                verdict = fuzz_verdict(items[index].arguments, answered[index])
                unshrunk = items[index].arguments if verdict is CallClass.CRASH else None
                probes.append(FuzzCall(name, items[index], verdict, answered[index], unshrunk))
        raise
    return probes


async def _walk(
    prober: Prober,
    name: str,
    items: Sequence[FuzzInput],
    answered: Mapping[int, CallOutcome],
    plan: FuzzPlan,
    clock: Clock,
    probes: list[FuzzCall],
) -> None:
    """`fuzz_tool`'s walk over the inputs in order into `probes`, sending alone those not `answered`."""
    shrunk: dict[str, tuple[Any, int]] = {}  # signature -> minimised input, calls spent on it
    hangs = 0
    for index, item in enumerate(items):
        late = clock.out() and index not in answered  # what was sent in time is kept
        if not item.sendable or hangs >= HANG_LIMIT or late:
            why = NOT_JSON if not item.sendable else OUT_OF_TIME if late else HUNG
            probes.append(FuzzCall(name, item, CallClass.SKIPPED, None, unsent=why))
            continue
        outcome = answered.get(index)
        if outcome is None:
            outcome = await prober.call(name, item.arguments)
        verdict = fuzz_verdict(item.arguments, outcome)
        hangs = hangs + 1 if verdict is CallClass.TIMEOUT else 0
        if verdict is not CallClass.CRASH:
            probes.append(FuzzCall(name, item, verdict, outcome))
            continue
        key = signature(outcome, verdict)
        if key in shrunk:
            probes.append(FuzzCall(name, item, verdict, outcome, shrunk[key][0]))
            continue

        async def still_crashes(candidate: Any, name: str = name) -> bool:
            outcome = await prober.call(name, candidate)
            return fuzz_verdict(candidate, outcome) is CallClass.CRASH

        try:
            budget = plan.shrink_budget
            shrunk[key] = await shrink(item.arguments, still_crashes, budget=budget, stop=clock.out)
        except BaseException:  # cancelled (a stop signal): the crash stands as found
            probes.append(FuzzCall(name, item, verdict, outcome, item.arguments))
            raise
        probes.append(FuzzCall(name, item, verdict, outcome, *shrunk[key]))


async def fuzz_tools(
    spec: ConnectSpec,
    tools: Sequence[Tool],
    plan: FuzzPlan,
    done: Callable[[int, list[FuzzCall]], None],
    started: Callable[[int], None] = lambda index: None,
    outcomes: list[list[FuzzCall] | None] | None = None,
) -> list[list[FuzzCall] | None]:
    """Fuzz the tools on up to `plan.jobs` workers (each its own server), each with `plan.jobs` // workers
    calls in flight, so never more than `plan.jobs` in all; `started(index)` before and `done(index, probes)`
    after each tool. A tool not started before `plan.max_time_s` ran out is None. `outcomes` (default: a new
    list of Nones), one entry per tool, is filled as the answers come."""
    outcomes = [None for _ in tools] if outcomes is None else outcomes
    next_index = iter(range(len(tools)))
    clock = Clock(plan.max_time_s)
    workers = max(1, min(plan.jobs, len(tools)))
    in_flight = max(1, plan.jobs // workers)

    async def worker() -> None:
        async with Prober(spec) as prober:
            for index in next_index:
                if clock.out():
                    continue
                started(index)
                probes: list[FuzzCall] = []
                outcomes[index] = probes
                await fuzz_tool(prober, tools[index], plan, clock, probes, in_flight)
                done(index, probes)

    async with anyio.create_task_group() as group:
        for _ in range(workers):
            group.start_soon(worker)
    return outcomes


@dataclass(frozen=True)
class FuzzFinding:
    """Inputs of one tool that failed the same way: crashes that came down to one minimised input, or
    timeouts (or protocol errors) of any input, in the order sent."""

    probes: tuple[FuzzCall, ...]

    @property
    def first(self) -> FuzzCall:
        return self.probes[0]

    @property
    def categories(self) -> tuple[str, ...]:
        return tuple(probe.input.category for probe in self.probes)

    @property
    def input(self) -> Any:
        return self.first.shrunk if self.first.verdict is CallClass.CRASH else self.first.input.arguments


def findings(probes: Sequence[FuzzCall]) -> list[FuzzFinding]:
    """The tool's findings: one per minimised input for crashes (a crash every input causes is one), one
    per class for timeouts and protocol errors."""
    groups: dict[tuple[str, str], list[FuzzCall]] = {}
    for probe in probes:
        if probe.verdict in FINDINGS:
            minimised = json.dumps(probe.shrunk, sort_keys=True, default=str)
            key = (probe.verdict.value, minimised if probe.verdict is CallClass.CRASH else "")
            groups.setdefault(key, []).append(probe)
    return [FuzzFinding(tuple(group)) for group in groups.values()]


def probe_step(probe: FuzzCall) -> Step:
    """One input as a report step: what was sent, what came back, its class."""
    label = f"{probe.tool} [{probe.input.category}]"
    return call_step(probe.tool, label, probe.input.arguments, probe.outcome, probe.verdict, probe.unsent)


def tool_results(tool: str, probes: Sequence[FuzzCall], source: Path) -> list[CaseResult]:
    """One failing result per finding, or one passing result (with the counts per class) for a tool
    without any; each with the inputs it stands for as steps."""
    found = findings(probes)
    late = sum(1 for probe in probes if probe.unsent == OUT_OF_TIME)
    if found:
        hung = sum(1 for probe in probes if probe.unsent == HUNG)
        return [_finding_result(finding, source, hung, late) for finding in found]
    counts = ", ".join(
        f"{sum(1 for probe in probes if probe.verdict is verdict)} {verdict.value}"
        for verdict in (CallClass.PASSED, CallClass.REJECTED, CallClass.SKIPPED)
    )
    duration = sum(probe.outcome.duration_s for probe in probes if probe.outcome is not None)
    cut = f"; {late} not sent: --max-time ran out" if late else ""
    name = f"{tool}: {len(probes)} inputs ({counts}{cut})"
    steps = tuple(probe_step(probe) for probe in probes)
    spoken = next((probe.outcome.protocol for probe in probes if probe.outcome is not None), None)
    return [
        CaseResult(
            name=name, file=source, status=Status.PASS, duration_s=duration, steps=steps, protocol=spoken
        )
    ]


def _finding_result(finding: FuzzFinding, source: Path, hung: int = 0, late: int = 0) -> CaseResult:
    probe = finding.first
    outcome = probe.outcome or CallOutcome(None, None, 0.0)
    more = len(finding.categories) - 1
    message = verdict_message(outcome, probe.verdict)
    if probe.verdict is CallClass.CRASH:
        message += f"\nminimised input: {excerpt(finding.input)}"
    else:
        message += f"\ninput: {excerpt(finding.input)}"
    if more:
        message += f"\n{more} more inputs failed the same way"
    if hung and probe.verdict is CallClass.TIMEOUT:
        message += f"\n{hung} later inputs {HUNG}"
    if late:
        message += f"\n{late} later inputs {OUT_OF_TIME}"
    failure = Failure(
        kind=outcome.failure.kind if outcome.failure is not None else FailureKind.TOOL_ERROR,
        message=message,
        check=probe.verdict.value,
        details={
            "class": probe.verdict.value,
            "categories": list(finding.categories),
            "arguments": probe.input.arguments,
            "minimised": finding.input,
            "shrink_calls": probe.shrink_calls,
        },
    )
    return CaseResult(
        name=f"{probe.tool} [{probe.input.category}]",
        file=source,
        status=Status.FAIL,
        failure=failure,
        duration_s=outcome.duration_s,
        stderr=outcome.stderr,
        steps=tuple(probe_step(each) for each in finding.probes),
        protocol=outcome.protocol,
    )


def finding_case(finding: FuzzFinding, spec: ConnectSpec) -> dict[str, Any]:
    """A toolproof case that fails while the finding stands and passes once the server is fixed."""
    probe = finding.first
    expect: dict[str, Any] = {}
    text = result_text(probe.outcome.result or {}) if probe.outcome is not None else ""
    marker = internal_error(text)
    if marker:
        found = text.lower().index(marker)
        expect["not_contains"] = [text[found : found + len(marker)]]
    return {
        "name": f"{probe.tool} survives {probe.input.category}",
        "server": server_block(spec),
        "timeout": f"{spec.request_timeout:g}s",
        "assert": {"tool": probe.tool, "args": finding.input, "expect": expect},
    }
