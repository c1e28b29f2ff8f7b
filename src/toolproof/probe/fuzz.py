"""`fuzz`: send each tool the hostile inputs of `fuzz_inputs`, classify every answer, shrink every crash.

Classes: passed (a result), rejected (-32602, any error response to arguments that are not an object, or an
isError explaining the bad input: correct behaviour),
crash, timeout, protocol error (findings), skipped (an input JSON cannot carry: never sent). Tools are
spread over `jobs` workers, each with its own server; results are reported in tool order whatever the
scheduling, so a seed always prints the same results.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from toolproof.mcp.spec import ConnectSpec
from toolproof.model.result import CaseResult, Failure, FailureKind, Status
from toolproof.probe.cases import server_block
from toolproof.probe.connection import Prober
from toolproof.probe.fuzz_inputs import FuzzInput, fuzz_inputs
from toolproof.probe.outcome import Outcome
from toolproof.probe.shrink import shrink
from toolproof.probe.tools import Tool, input_schema, tool_name
from toolproof.probe.verdicts import FINDINGS, Verdict, classify, describe, internal_error, result_text

SHRINK_BUDGET = 100
"""Calls spent minimising one crash."""
HANG_LIMIT = 3
"""Timeouts in a row after which a tool's remaining inputs are not sent (each would wait the full timeout)."""
NOT_JSON = "JSON cannot carry this input"


@dataclass(frozen=True)
class Probe:
    """One input sent (or skipped) and its class; `shrunk` is the minimised input of a crash."""

    tool: str
    input: FuzzInput
    verdict: Verdict
    outcome: Outcome | None
    shrunk: Any = None
    shrink_calls: int = 0
    unsent: str = ""  # why a skipped input was not sent


@dataclass(frozen=True)
class FuzzPlan:
    seed: int
    runs: int
    jobs: int = 1
    shrink_budget: int = SHRINK_BUDGET


async def fuzz_tool(
    prober: Prober, tool: Tool, plan: FuzzPlan, probes: list[Probe] | None = None
) -> list[Probe]:
    """Every input for one tool, in order; crashes are shrunk before the next input; after HANG_LIMIT
    timeouts in a row the remaining inputs are skipped. `probes` (default: a new list) is filled as the
    answers come, so a fuzz stopped early keeps them (a crash stopped while shrinking, unshrunk)."""
    name = tool_name(tool)
    probes = [] if probes is None else probes
    hangs = 0
    for item in fuzz_inputs(input_schema(tool), seed=plan.seed, tool=name, runs=plan.runs):
        if not item.sendable or hangs >= HANG_LIMIT:
            why = NOT_JSON if not item.sendable else f"not sent after {HANG_LIMIT} timeouts in a row"
            probes.append(Probe(name, item, Verdict.SKIPPED, None, unsent=why))
            continue
        outcome = await prober.call(name, item.arguments)
        verdict = classify(outcome, valid_input=False, malformed=not isinstance(item.arguments, dict))
        hangs = hangs + 1 if verdict is Verdict.TIMEOUT else 0
        if verdict is not Verdict.CRASH:
            probes.append(Probe(name, item, verdict, outcome))
            continue

        async def still_crashes(candidate: Any, name: str = name) -> bool:
            outcome = await prober.call(name, candidate)
            malformed = not isinstance(candidate, dict)
            return classify(outcome, valid_input=False, malformed=malformed) is Verdict.CRASH

        try:
            shrunk, calls = await shrink(item.arguments, still_crashes, budget=plan.shrink_budget)
        except BaseException:  # cancelled (a stop signal): the crash stands as found
            probes.append(Probe(name, item, verdict, outcome, item.arguments))
            raise
        probes.append(Probe(name, item, verdict, outcome, shrunk, calls))
    return probes


async def fuzz_tools(
    spec: ConnectSpec,
    tools: Sequence[Tool],
    plan: FuzzPlan,
    done: Callable[[int, list[Probe]], None],
    outcomes: list[list[Probe]] | None = None,
) -> list[list[Probe]]:
    """Fuzz the tools on `plan.jobs` workers (each its own server); `done(index, probes)` after each tool.
    `outcomes` (default: new lists), one list per tool, is filled as the answers come."""
    outcomes = [[] for _ in tools] if outcomes is None else outcomes
    next_index = iter(range(len(tools)))

    async def worker() -> None:
        async with Prober(spec) as prober:
            for index in next_index:
                await fuzz_tool(prober, tools[index], plan, outcomes[index])
                done(index, outcomes[index])

    async with anyio.create_task_group() as group:
        for _ in range(max(1, min(plan.jobs, len(tools)))):
            group.start_soon(worker)
    return outcomes


@dataclass(frozen=True)
class FuzzFinding:
    """Inputs of one tool that failed the same way: crashes that came down to one minimised input, or
    timeouts (or protocol errors) of any input. `first` is the first such input; `categories` name all."""

    first: Probe
    categories: tuple[str, ...]

    @property
    def input(self) -> Any:
        return self.first.shrunk if self.first.verdict is Verdict.CRASH else self.first.input.arguments


def findings(probes: Sequence[Probe]) -> list[FuzzFinding]:
    """The tool's findings: one per minimised input for crashes (a crash every input causes is one), one
    per class for timeouts and protocol errors."""
    groups: dict[tuple[str, str], list[Probe]] = {}
    for probe in probes:
        if probe.verdict in FINDINGS:
            minimised = json.dumps(probe.shrunk, sort_keys=True, default=str)
            key = (probe.verdict.value, minimised if probe.verdict is Verdict.CRASH else "")
            groups.setdefault(key, []).append(probe)
    return [FuzzFinding(group[0], tuple(p.input.category for p in group)) for group in groups.values()]


def tool_results(tool: str, probes: Sequence[Probe], source: Path) -> list[CaseResult]:
    """One failing result per finding, or one passing result (with the counts per class) for a tool
    without any."""
    found = findings(probes)
    if found:
        unsent = sum(1 for probe in probes if probe.unsent and probe.unsent != NOT_JSON)
        return [_finding_result(finding, source, unsent) for finding in found]
    counts = ", ".join(
        f"{sum(1 for probe in probes if probe.verdict is verdict)} {verdict.value}"
        for verdict in (Verdict.PASSED, Verdict.REJECTED, Verdict.SKIPPED)
    )
    duration = sum(probe.outcome.duration_s for probe in probes if probe.outcome is not None)
    name = f"{tool}: {len(probes)} inputs ({counts})"
    return [CaseResult(name=name, file=source, status=Status.PASS, duration_s=duration)]


def _excerpt(value: Any, limit: int = 300) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def _finding_result(finding: FuzzFinding, source: Path, unsent: int = 0) -> CaseResult:
    probe = finding.first
    outcome = probe.outcome or Outcome(None, None, 0.0)
    more = len(finding.categories) - 1
    message = f"{probe.verdict.value}: {describe(outcome, probe.verdict)}"
    if probe.verdict is Verdict.CRASH:
        message += f"\nminimised input: {_excerpt(finding.input)}"
    else:
        message += f"\ninput: {_excerpt(finding.input)}"
    if more:
        message += f"\n{more} more inputs failed the same way"
    if unsent and probe.verdict is Verdict.TIMEOUT:
        message += f"\n{unsent} later inputs not sent after {HANG_LIMIT} timeouts in a row"
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
