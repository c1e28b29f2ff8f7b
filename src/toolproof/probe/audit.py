"""`audit`: call every tool once with valid arguments generated from its schema and classify the answer.

One result per tool: healthy passes; crash, timeout, protocol error and rejects-valid-input (-32602 for
arguments that match the schema) fail; destructive tools are skipped unless `include_writes`. The score is
healthy / tested.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from toolproof.mcp.spec import ConnectSpec
from toolproof.model.result import CaseResult, Failure, FailureKind, Status
from toolproof.probe.arguments import tool_arguments
from toolproof.probe.cases import server_block
from toolproof.probe.concurrent import Call, call_concurrently
from toolproof.probe.connection import Prober
from toolproof.probe.outcome import CallOutcome
from toolproof.probe.tools import Tool, input_schema, is_destructive, skip_reason, tool_name
from toolproof.probe.verdicts import CODES, FINDINGS, CallClass, call_step, classify, verdict_message

SLOW_S = 1.0
"""A tool that took this long or longer last time is called before the others."""


@dataclass(frozen=True)
class ToolAudit:
    """The class of one tool's call, its arguments and what came back (`outcome` None: not called, for
    `skipped`)."""

    tool: str
    verdict: CallClass
    arguments: dict[str, Any]
    outcome: CallOutcome | None
    skipped: str = ""


async def audit_tools(
    prober: Prober,
    tools: Sequence[Tool],
    *,
    include_writes: bool,
    jobs: int = 1,
    done: Callable[[int, ToolAudit], None] = lambda index, audit: None,
    last: Mapping[str, float] | None = None,
) -> list[ToolAudit]:
    """Each tool in list order, up to `jobs` calls at once (`concurrent`: a crash or hang is still blamed
    on the call that caused it), the tools that took `SLOW_S` or more last time (`last`: seconds by tool)
    sent first, slowest first, so that the others are answered while they run; `done(index, audit)` as
    each tool's verdict is final."""
    called = [index for index, tool in enumerate(tools) if include_writes or not is_destructive(tool)]
    audits = [  # skipped until called
        ToolAudit(tool_name(tool), CallClass.SKIPPED, tool_arguments(input_schema(tool)), None)
        for tool in tools
    ]
    for index in sorted(set(range(len(tools))) - set(called)):
        audits[index] = replace(audits[index], skipped=skip_reason(tools[index]))
        done(index, audits[index])

    def answered(position: int, outcome: CallOutcome) -> None:
        index = called[position]
        planned = audits[index]
        audits[index] = ToolAudit(
            planned.tool, classify(outcome, valid_input=True), planned.arguments, outcome
        )
        done(index, audits[index])

    calls = [Call(audits[index].tool, audits[index].arguments) for index in called]
    took = [(last or {}).get(call.name, 0.0) for call in calls]
    slow = sorted((at for at, seconds in enumerate(took) if seconds >= SLOW_S), key=lambda at: -took[at])
    await call_concurrently(prober, calls, jobs, answered, first=slow)
    return audits


def score(audits: Sequence[ToolAudit]) -> tuple[int, int]:
    """(healthy, tested): tools called, and how many of them were healthy."""
    tested = [audit for audit in audits if audit.verdict is not CallClass.SKIPPED]
    return sum(1 for audit in tested if audit.verdict is CallClass.HEALTHY), len(tested)


def audit_result(audit: ToolAudit, source: Path) -> CaseResult:
    """The verdict on one tool in the project's result model."""
    outcome = audit.outcome
    if outcome is None:
        return CaseResult(name=audit.tool, file=source, status=Status.SKIP, reason=audit.skipped)
    steps = (call_step(audit.tool, audit.tool, audit.arguments, outcome, audit.verdict),)
    if audit.verdict not in FINDINGS:
        return CaseResult(
            name=audit.tool,
            file=source,
            status=Status.PASS,
            duration_s=outcome.duration_s,
            steps=steps,
            protocol=outcome.protocol,
        )
    kind = outcome.failure.kind if outcome.failure is not None else FailureKind.TOOL_ERROR
    failure = Failure(
        kind=kind,
        message=verdict_message(outcome, audit.verdict),
        check=audit.verdict.value,
        actual=outcome.result,
        details={"class": audit.verdict.value, "code": CODES[audit.verdict], "arguments": audit.arguments},
    )
    return CaseResult(
        name=audit.tool,
        file=source,
        status=Status.FAIL,
        failure=failure,
        duration_s=outcome.duration_s,
        stderr=outcome.stderr,
        protocol=outcome.protocol,
        steps=steps,
    )


def healthy_case(audit: ToolAudit, spec: ConnectSpec) -> dict[str, Any]:
    """A case that passes today for a healthy tool: its call, expecting the error state it answered with."""
    result = audit.outcome.result if audit.outcome is not None else None
    is_error = bool(result and result.get("isError") is True)
    return {
        "name": f"{audit.tool} answers valid arguments",
        "server": server_block(spec),
        "assert": {
            "tool": audit.tool,
            "args": audit.arguments,
            "expect": {"is_error" if is_error else "not_error": True},
        },
    }
