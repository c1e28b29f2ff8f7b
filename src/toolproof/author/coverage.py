"""Which tools, resources and prompts of a server a suite exercises, and which arguments of each tool it ever
gives. Pure: from the loaded cases and the server's listing.

Unlike mcp-assert, a skipped case exercises nothing, and setup steps (preparation, not tests) count for
nothing either; resources and prompts are counted beside tools.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolproof.author.listing import Listing
from toolproof.model.server_case import (
    AssertBlock,
    Case,
    CompletionBlock,
    LoggingBlock,
    NotificationsBlock,
    PromptsBlock,
    ResourcesBlock,
    SamplingBlock,
)

_TEMPLATE_VARIABLE = re.compile(r"\{[^{}]*\}")


@dataclass(frozen=True)
class ToolCoverage:
    name: str
    cases: int
    arguments: list[str]  # the declared arguments some case gives
    missing_arguments: list[str]  # the declared arguments no case gives


@dataclass(frozen=True)
class Share:
    """Items of one kind (resources or prompts): those exercised, with their case counts, and the rest."""

    covered: dict[str, int] = field(default_factory=dict)
    uncovered: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return len(self.covered) + len(self.uncovered)


@dataclass(frozen=True)
class Coverage:
    tools: list[ToolCoverage]  # every tool of the server, by name
    resources: Share
    prompts: Share
    unknown_tools: list[str]  # tools the suite calls that the server does not list

    @property
    def covered_tools(self) -> list[ToolCoverage]:
        return [tool for tool in self.tools if tool.cases]

    @property
    def percentage(self) -> int:
        """Covered tools in whole percent, rounded down as mcp-assert does (100 for a server with none)."""
        return percent(len(self.covered_tools), len(self.tools))


def percent(part: int, whole: int) -> int:
    return part * 100 // whole if whole else 100


def _tool_calls(case: Case) -> Iterator[tuple[str, dict[str, Any]]]:
    block = case.block
    if isinstance(block, AssertBlock | SamplingBlock | NotificationsBlock | LoggingBlock) and block.tool:
        yield block.tool, block.args


def _resources(case: Case) -> Iterator[str]:
    block = case.block
    if isinstance(block, ResourcesBlock):
        yield from (uri for uri in (block.read, block.subscribe) if uri)
    elif isinstance(block, CompletionBlock) and block.ref.type == "ref/resource" and block.ref.uri:
        yield block.ref.uri


def _prompts(case: Case) -> Iterator[str]:
    block = case.block
    if isinstance(block, PromptsBlock) and block.get is not None:
        yield block.get.name
    elif isinstance(block, CompletionBlock) and block.ref.type == "ref/prompt" and block.ref.name:
        yield block.ref.name


def template_matches(template: str, uri: str) -> bool:
    """Whether `uri` is an instance of the URI template (each `{...}` standing for any text)."""
    parts = _TEMPLATE_VARIABLE.split(template)
    return re.fullmatch(".+?".join(re.escape(part) for part in parts), uri) is not None


def _share(names: Sequence[str], used: dict[str, int]) -> Share:
    covered = {name: used[name] for name in names if used.get(name)}
    return Share(covered, [name for name in names if name not in covered])


def measure(cases: Sequence[Case], listing: Listing) -> Coverage:
    """The suite's coverage of the listed server (skipped cases left out)."""
    calls: dict[str, int] = {}
    given: dict[str, set[str]] = {}
    read: dict[str, int] = {}
    prompts: dict[str, int] = {}
    for case in (case for case in cases if not case.skip):
        for tool, args in _tool_calls(case):
            calls[tool] = calls.get(tool, 0) + 1
            given.setdefault(tool, set()).update(args)
        for uri in _resources(case):
            read[uri] = read.get(uri, 0) + 1
        for name in _prompts(case):
            prompts[name] = prompts.get(name, 0) + 1
    tools = []
    for declaration in sorted(listing.tools, key=lambda item: str(item.get("name"))):
        name = str(declaration.get("name"))
        declared = list((declaration.get("inputSchema") or {}).get("properties") or {})
        used = given.get(name, set())
        tools.append(
            ToolCoverage(
                name,
                calls.get(name, 0),
                [arg for arg in declared if arg in used],
                [arg for arg in declared if arg not in used],
            )
        )
    listed = {tool.name for tool in tools}
    resource_names = [str(item.get("uri")) for item in listing.resources]
    templates = [str(item.get("uriTemplate")) for item in listing.templates]
    resource_use = {uri: read.get(uri, 0) for uri in resource_names}
    for template in templates:
        resource_use[template] = sum(count for uri, count in read.items() if template_matches(template, uri))
    prompt_names = [str(item.get("name")) for item in listing.prompts]
    return Coverage(
        tools=tools,
        resources=_share([*resource_names, *templates], resource_use),
        prompts=_share(prompt_names, prompts),
        unknown_tools=sorted(name for name in calls if name not in listed),
    )


def _share_json(share: Share) -> dict[str, Any]:
    return {
        "total": share.total,
        "covered": len(share.covered),
        "percentage": percent(len(share.covered), share.total),
        "covered_items": [{"name": name, "assertions": count} for name, count in share.covered.items()],
        "uncovered_items": share.uncovered,
    }


def coverage_json(coverage: Coverage) -> dict[str, Any]:
    """mcp-assert's coverage JSON (total, covered, percentage, covered_tools, uncovered_tools: tools only),
    with the arguments of each tool, the resources and prompts, and the tools the server does not list."""
    return {
        "total": len(coverage.tools),
        "covered": len(coverage.covered_tools),
        "percentage": coverage.percentage,
        "covered_tools": [
            {
                "name": tool.name,
                "assertions": tool.cases,
                "arguments": tool.arguments,
                "uncovered_arguments": tool.missing_arguments,
            }
            for tool in coverage.covered_tools
        ],
        "uncovered_tools": [tool.name for tool in coverage.tools if not tool.cases],
        "resources": _share_json(coverage.resources),
        "prompts": _share_json(coverage.prompts),
        "unknown_tools": coverage.unknown_tools,
    }


def coverage_lines(coverage: Coverage) -> list[str]:
    """The terminal report."""
    covered = coverage.covered_tools
    lines = [f"tools: {len(covered)} of {len(coverage.tools)} exercised ({coverage.percentage}%)"]
    for tool in covered:
        noun = "case" if tool.cases == 1 else "cases"
        detail = f"{tool.cases} {noun}"
        if tool.missing_arguments:
            detail += f"; arguments never given: {', '.join(tool.missing_arguments)}"
        lines.append(f"  + {tool.name} ({detail})")
    lines.extend(f"  - {tool.name}" for tool in coverage.tools if not tool.cases)
    for label, share in (("resources", coverage.resources), ("prompts", coverage.prompts)):
        if share.total:
            count = len(share.covered)
            lines.append(f"{label}: {count} of {share.total} exercised ({percent(count, share.total)}%)")
            lines.extend(f"  + {name}" for name in share.covered)
            lines.extend(f"  - {name}" for name in share.uncovered)
    if coverage.unknown_tools:
        lines.append(f"called but not listed by the server: {', '.join(coverage.unknown_tools)}")
    return lines
