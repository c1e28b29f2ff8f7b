"""The flow rules: values inferred to pass from one tool's fields to another's (free text, cycles)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from toolproof.probe.lint_rules.findings import Finding, description_of, finding, name_of, properties_of
from toolproof.probe.tools import Tool

COMMON_PARAMS = frozenset(
    [
        "path",
        "file",
        "name",
        "type",
        "id",
        "url",
        "dir",
        "directory",
        "format",
        "output",
        "input",
        "mode",
        "source",
        "destination",
        "target",
        "content",
        "pattern",
        "query",
        "text",
        "encoding",
        "recursive",
        "limit",
        "offset",
        "exclude",
        "include",
        "filter",
        "options",
        "command",
        "language",
        "uri",
        "root",
        "new_text",
        "old_text",
        "scope",
        "connect",
        "message",
        "description",
        "title",
        "workspace_edit",
        "body",
        "code",
        "prompt",
        "instructions",
        "template",
        "expression",
        "regex",
        "selector",
    ]
)
COMMON_SUFFIXES = (
    "_path", "_file", "_dir", "_root", "_directory", "_id", "_ids", "_uri", "_url", "_name", "_command",
    "_language", "_text", "_content", "_message", "_description", "_query", "_pattern", "_filter", "_edit",
)  # fmt: skip
PROPAGATION_CONFIDENCE = 0.65
CYCLE_CONFIDENCE = 0.75
CYCLE_NAMES_SHOWN = 10


@dataclass(frozen=True)
class _Field:
    name: str
    kind: str
    free: bool  # a string without enum, pattern or format


@dataclass(frozen=True)
class _Flow:
    source: str
    field: str
    target: str
    target_field: str
    confidence: float


def _words(name: str) -> list[str]:
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name.replace("_", " ").replace("-", " "))
    return [word.lower() for word in spaced.split() if len(word) > 2]


def _name_similarity(a: str, b: str) -> float:
    a, b = a.lower(), b.lower()
    if a == b:
        return 1.0
    if a.replace("_", "").replace("-", "") == b.replace("_", "").replace("-", ""):
        return 0.95
    if (len(a) >= 3 and a in b) or (len(b) >= 3 and b in a):
        return 0.8
    left, right = _words(a), _words(b)
    if not left or not right:
        return 0.0
    shared = sum(1 for word in left if word in right)
    return shared / (len(left) + len(right) - shared)


def _common(name: str) -> bool:
    lower = name.lower()
    return lower in COMMON_PARAMS or lower.endswith(COMMON_SUFFIXES)


_COMPATIBLE = {
    "string": {"string"},
    "number": {"string", "integer"},
    "integer": {"string", "number"},
    "boolean": {"string"},
}


def _words_of(text: str) -> frozenset[str]:
    return frozenset(word for word in text.lower().split() if len(word) > 2)


def _jaccard(left: frozenset[str], right: frozenset[str]) -> float:
    if not left or not right:
        return 0.0
    return len(left & right) / len(left | right)


def _confidence(a: _Field, b: _Field, names: float, texts: float) -> float:
    """How likely a value flows from field `a` to field `b`: `names` is how alike their names are (at least
    0.8), `texts` how many words the two tools' descriptions share."""
    score = names * 0.5
    if a.kind and a.kind == b.kind:
        score += 0.3
    elif b.kind in _COMPATIBLE.get(a.kind, set()):
        score += 0.15
    score += texts * 0.2
    if names == 1.0 and a.kind == b.kind:
        score += 0.1
    return min(score, 1.0)


def _fields(tool: Tool) -> list[_Field]:
    return [
        _Field(
            name,
            str(prop.get("type")) if isinstance(prop.get("type"), str) else "",
            prop.get("type") == "string" and not any(key in prop for key in ("enum", "pattern", "format")),
        )
        for name, prop in properties_of(tool).items()
    ]


def flows(tools: Sequence[Tool]) -> list[_Flow]:
    """Inferred value flows between tools: fields of two tools whose names (and types) match closely.

    Names are compared once per pair of distinct names, so a long tool list costs little more than its
    distinct parameter names."""
    fields = [_fields(tool) for tool in tools]
    holders: dict[str, list[tuple[int, int]]] = {}  # name -> (tool index, field index)
    for tool_index, tool_fields in enumerate(fields):
        for field_index, field in enumerate(tool_fields):
            if not _common(field.name):
                holders.setdefault(field.name, []).append((tool_index, field_index))
    names = list(holders)
    words = [_words_of(description_of(tool)) for tool in tools]
    tool_names = [name_of(tool) for tool in tools]
    found: list[tuple[tuple[int, int, int, int], _Flow]] = []
    for a_name in names:
        for b_name in names:
            alike = _name_similarity(a_name, b_name)
            if alike < 0.8:
                continue
            for source, a_index in holders[a_name]:
                for target, b_index in holders[b_name]:
                    if source == target:
                        continue
                    a, b = fields[source][a_index], fields[target][b_index]
                    score = _confidence(a, b, alike, _jaccard(words[source], words[target]))
                    if score >= 0.6:
                        flow = _Flow(tool_names[source], a.name, tool_names[target], b.name, score)
                        found.append(((source, target, a_index, b_index), flow))
    return [flow for _, flow in sorted(found, key=lambda item: item[0])]


def flow_rules(tools: Sequence[Tool]) -> Iterator[Finding]:
    """E105 then E107, from one inference of the flows (the costliest step of linting a long list)."""
    found = flows(tools)
    yield from free_text_propagation(tools, found)
    yield from circular_dependencies(found)


def free_text_propagation(tools: Sequence[Tool], found: Sequence[_Flow]) -> Iterator[Finding]:
    """E105 once per producing field and consuming tool: both ends are unconstrained strings."""
    kinds: dict[str, dict[str, _Field]] = {}
    for tool in tools:  # tools that share a name (E113) pool their fields, so each flow finds its own
        fields = kinds.setdefault(name_of(tool), {})
        for field in _fields(tool):
            fields.setdefault(field.name, field)
    seen: set[tuple[str, str, str]] = set()
    for flow in found:
        key = (flow.source, flow.field, flow.target)
        if flow.confidence < PROPAGATION_CONFIDENCE or key in seen:
            continue
        if kinds[flow.source][flow.field].free and kinds[flow.target][flow.target_field].free:
            seen.add(key)
            yield finding(
                flow.source,
                "E105",
                "free-text-propagation",
                f"Unconstrained string {flow.field!r} flows from {flow.source!r} to {flow.target!r}: "
                "agents may pass free text where structured data is expected.",
                f"args.{flow.field}",
            )


def circular_dependencies(found: Sequence[_Flow]) -> Iterator[Finding]:
    """E107 once per strongly connected group of tools (each tool of it reaches every other through the
    inferred flows), so the cost and the output grow with the flows, never with the cycles among them."""
    targets: dict[str, dict[str, None]] = {}  # ordered sets
    for flow in found:
        if flow.confidence >= CYCLE_CONFIDENCE:
            targets.setdefault(flow.source, {})[flow.target] = None
    graph = {source: list(ends) for source, ends in targets.items()}
    groups = [
        sorted(group)
        for group in strongly_connected(graph)
        if len(group) > 1 or group[0] in graph.get(group[0], [])
    ]
    for group in sorted(groups):
        shown = ", ".join(group[:CYCLE_NAMES_SHOWN])
        more = f" and {len(group) - CYCLE_NAMES_SHOWN} more" if len(group) > CYCLE_NAMES_SHOWN else ""
        yield finding(
            group[0],
            "E107",
            "circular-dependency",
            f"Circular dependency between {shown}{more}: agents may loop.",
            "dependencies",
        )


def strongly_connected(graph: Mapping[str, Sequence[str]]) -> list[list[str]]:
    """The strongly connected components of `graph` (Tarjan's algorithm, iterative: no recursion limit),
    each in discovery order; linear in nodes plus edges."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            node, position = work.pop()
            if position == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            neighbours = graph.get(node, ())
            if position < len(neighbours):
                work.append((node, position + 1))
                neighbour = neighbours[position]
                if neighbour not in index:
                    work.append((neighbour, 0))
                elif neighbour in on_stack:
                    low[node] = min(low[node], index[neighbour])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(component)
    return components
