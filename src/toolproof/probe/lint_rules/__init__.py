"""The schema lint rules: what an agent needs from a tool list, checked without calling anything (pure).

Codes, severities and thresholds are mcp-assert's, so its users see the same findings, with three
corrections: E105 is reported once per producing field and consuming tool (mcp-assert repeats it per
matching consumer field), E107 is a warning under its E code (mcp-assert prints it with a `W`), once per
strongly connected group of tools rather than per cycle, and E112 flags authentication tokens
(`access_token`, `refresh_token`, `api_token`, ..., and a `token` its description does not call a link,
page or CSRF token), which mcp-assert's filter lets through. Findings come out in tool order, properties
in schema order. The rules live by what they read: `descriptions`, `schemas`, `flows`; this module holds
their one ordered registry, each rule with the codes it reports, so a skipped rule is never run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from toolproof.probe.lint_rules.descriptions import (
    description_drift,
    duplicate_names,
    empty_description,
    hidden_side_effects,
    overloaded_tool,
    short_or_long_description,
    silent_output,
    similar_descriptions,
    vague_description,
)
from toolproof.probe.lint_rules.findings import Finding, Severity
from toolproof.probe.lint_rules.flows import flow_rules
from toolproof.probe.lint_rules.schemas import (
    bloated_list,
    costly_tool,
    deep_schema,
    missing_examples,
    parameter_rules,
    sensitive_parameters,
    too_many_tools,
)
from toolproof.probe.tools import Tool

__all__ = ["LIST_RULES", "RULE_CODES", "TOOL_RULES", "Finding", "Severity", "grade", "lint_tools"]

ToolRule = Callable[[Tool], Iterator[Finding]]
ListRule = Callable[[Sequence[Tool]], Iterator[Finding]]

TOOL_RULES: tuple[tuple[ToolRule, frozenset[str]], ...] = (
    (empty_description, frozenset({"E101"})),
    (vague_description, frozenset({"W101"})),
    (parameter_rules, frozenset({"E102", "E103", "W102", "W104", "W103"})),
    (sensitive_parameters, frozenset({"E112"})),
    (short_or_long_description, frozenset({"W111"})),
    (deep_schema, frozenset({"W114"})),
    (costly_tool, frozenset({"W115"})),
    (silent_output, frozenset({"W116"})),
    (overloaded_tool, frozenset({"W103"})),
    (hidden_side_effects, frozenset({"W108"})),
    (missing_examples, frozenset({"W109"})),
    (description_drift, frozenset({"W110"})),
)
"""Each rule that reads one tool, with the codes it can report."""

LIST_RULES: tuple[tuple[ListRule, frozenset[str]], ...] = (
    (similar_descriptions, frozenset({"W105"})),
    (bloated_list, frozenset({"W106"})),
    (duplicate_names, frozenset({"E113"})),
    (flow_rules, frozenset({"E105", "E107"})),
    (too_many_tools, frozenset({"W112"})),
)
"""Each rule that reads the whole list, with the codes it can report."""

RULE_CODES = (
    "E101", "E102", "E103", "E105", "E107", "E112", "E113", "E301", "W101", "W102", "W103", "W104", "W105",
    "W106", "W107", "W108", "W109", "W110", "W111", "W112", "W114", "W115", "W116",
)  # fmt: skip
"""Every code a finding can carry (W103 covers two rules: unconstrained required string, overloaded tool)."""


def lint_tools(tools: Sequence[Tool], skip: frozenset[str] = frozenset()) -> list[Finding]:
    """Every schema finding for the tool list: per-tool rules in tool order, then the list-wide rules. A rule
    whose codes are all in `skip` is never run; the findings of skipped codes are dropped."""
    tool_rules = [rule for rule, codes in TOOL_RULES if not codes <= skip]
    list_rules = [rule for rule, codes in LIST_RULES if not codes <= skip]
    findings = [finding for tool in tools for rule in tool_rules for finding in rule(tool)]
    findings.extend(finding for rule in list_rules for finding in rule(tools))
    return [finding for finding in findings if finding.code not in skip]


def grade(findings: Sequence[Finding], *, skip: frozenset[str], strict: bool) -> list[Finding]:
    """Drop findings of skipped codes, then (with `strict`) promote warnings to errors."""
    kept = [finding for finding in findings if finding.code not in skip]
    if strict:
        kept = [Finding(f.tool, f.code, Severity.ERROR, f.message, f.field, f.rule) for f in kept]
    return kept
