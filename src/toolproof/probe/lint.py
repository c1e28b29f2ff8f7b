"""`lint`: the schema rules, plus the two rules that call tools (E301 response size, W107 nondeterminism),
and the verdicts as results: one per finding, one passing result per tool without any.

An error-severity finding fails; a warning is a passing result carrying it (it does not fail the run)
unless `--strict` made it an error or there are more findings than a non-zero `--threshold`, when every
finding fails.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.model.result import CaseResult, Failure, FailureKind, Status
from toolproof.probe.lint_rules import Finding, Severity
from toolproof.probe.tools import Tool, is_destructive, tool_name
from toolproof.probe.verdicts import result_text

if TYPE_CHECKING:
    from toolproof.probe.connection import Prober

NONDETERMINISM_CALLS = 3


@dataclass(frozen=True)
class CallRules:
    """The rules that call tools: E301 with `max_response_kb` (when `call_tools`), W107 (`nondeterminism`)."""

    call_tools: bool = False
    max_response_kb: int = 100
    nondeterminism: bool = False


async def call_findings(
    prober: Prober, tools: Sequence[Tool], rules: CallRules, findings: list[Finding]
) -> None:
    """Add the E301 and W107 findings to `findings`, tool by tool; destructive tools are not called, and a
    call that fails settles nothing."""
    if not (rules.call_tools or rules.nondeterminism):
        return
    from toolproof.probe.arguments import tool_arguments  # JSON Schema's validators: only when called

    for tool in tools:
        if is_destructive(tool):
            continue
        name = tool_name(tool)
        arguments = tool_arguments(tool.get("inputSchema"))
        calls = NONDETERMINISM_CALLS if rules.nondeterminism else 1
        texts: list[str] = []
        for _ in range(calls):
            outcome = await prober.call(name, arguments)
            if outcome.result is None:
                break
            texts.append(result_text(outcome.result))
        if not texts:
            continue
        size_kb = len(texts[0].encode()) // 1024
        if rules.call_tools and size_kb > rules.max_response_kb:
            message = (
                f"Response is {size_kb} KB (limit {rules.max_response_kb} KB): large responses fill the "
                "agent's context."
            )
            findings.append(Finding(name, "E301", Severity.ERROR, message, "response", "response-size"))
        distinct = {hashlib.sha256(text.encode()).hexdigest() for text in texts}
        if rules.nondeterminism and len(texts) == NONDETERMINISM_CALLS and len(distinct) > 1:
            message = f"{len(distinct)} different outputs from {NONDETERMINISM_CALLS} identical calls."
            findings.append(Finding(name, "W107", Severity.WARNING, message, "behavior", "nondeterminism"))


def lint_results(
    tools: Sequence[Tool], findings: Sequence[Finding], source: Path, *, threshold: int
) -> list[CaseResult]:
    """One result per finding (in order), then one passing result per tool that has none."""
    over = threshold > 0 and len(findings) > threshold
    results: list[CaseResult] = []
    for finding in findings:
        name = f"{finding.tool} {finding.code}: {finding.message}"
        if finding.severity is Severity.ERROR or over:
            why = f" ({len(findings)} findings, over --threshold {threshold})" if over else ""
            failure = Failure(
                kind=FailureKind.EXPECTATION,
                message=f"{finding.severity.value} at {finding.field}{why}",
                check=finding.code,
                details={
                    "tool": finding.tool,
                    "severity": finding.severity.value,
                    "field": finding.field,
                    "rule": finding.rule,
                },
            )
            results.append(CaseResult(name=name, file=source, status=Status.FAIL, failure=failure))
        else:
            warning = f"{finding.code} at {finding.field}"
            results.append(CaseResult(name=name, file=source, status=Status.PASS, warnings=(warning,)))
    flagged = {finding.tool for finding in findings}
    for tool in tools:
        if tool_name(tool) not in flagged:
            results.append(
                CaseResult(name=f"{tool_name(tool)}: no findings", file=source, status=Status.PASS)
            )
    return results


def stdout_result(stray: list[str], source: Path) -> CaseResult:
    """A passing result that warns of the lines the server wrote to stdout that are not MCP."""
    from toolproof.mcp.stdio import stray_warning

    warning = stray_warning(stray) or ""
    name = "stdout holds only MCP messages"
    return CaseResult(name=name, file=source, status=Status.PASS, warnings=(warning,))
