"""The schema lint rules: what an agent needs from a tool list, checked without calling anything (pure).

Codes, severities and thresholds are mcp-assert's, so its users see the same findings, with three
corrections: E105 is reported once per producing field and consuming tool (mcp-assert repeats it per
matching consumer field), E107 is a warning under its E code (mcp-assert prints it with a `W`), and E112
flags authentication tokens (`token`, `access_token`, `refresh_token`, `api_token`, ...), which
mcp-assert's filter lets through. Findings come out in tool order, properties in schema order.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from toolproof.probe.tools import Tool

SERVER = "(server)"
ALL_TOOLS = "(all tools)"


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Finding:
    """One rule broken by one tool (or by the tool list as a whole); `field` locates it (`args.NAME`)."""

    tool: str
    code: str
    severity: Severity
    message: str
    field: str
    rule: str


def _finding(tool: str, code: str, rule: str, message: str, field: str) -> Finding:
    severity = Severity.ERROR if code in ERROR_CODES else Severity.WARNING
    return Finding(tool, code, severity, message, field, rule)


ERROR_CODES = frozenset({"E101", "E102", "E103", "E105", "E112", "E113", "E301"})

VAGUE_DESCRIPTIONS = frozenset(
    {
        "get data",
        "process data",
        "do something",
        "execute",
        "run",
        "handle",
        "perform action",
        "utility",
        "helper",
    }
)
GENERIC_NAMES = frozenset(
    [
        "data",
        "value",
        "input",
        "output",
        "payload",
        "info",
        "content",
        "body",
        "params",
        "args",
        "options",
        "config",
        "settings",
        "result",
        "object",
        "item",
        "obj",
        "val",
        "str",
        "num",
    ]
)
SECRET_PATTERNS = (
    "password", "passwd", "secret", "api_key", "apikey", "api-key", "auth_token", "credential",
    "private_key", "privatekey", "access_key", "accesskey", "client_secret", "webhook_secret",
    "bearer", "jwt",
)  # fmt: skip
AUTH_TOKENS = ("auth_token", "access_token", "refresh_token", "bearer_token", "api_token", "id_token")
COUNTING_TOKENS = frozenset(
    [
        "token_budget",
        "token_count",
        "token_limit",
        "token_length",
        "max_tokens",
        "num_tokens",
        "token_usage",
        "total_tokens",
        "context_tokens",
        "prompt_tokens",
        "output_tokens",
        "page_token",
        "next_page_token",
        "cursor_token",
        "pagination_token",
    ]
)
RETURN_WORDS = ("returns", "return", "output", "produces", "responds with", "result")
MUTATION_VERBS = (
    "create", "delete", "remove", "update", "modify", "write", "insert", "drop", "destroy", "set", "put",
    "post", "send", "publish", "push", "add", "patch", "replace",
)  # fmt: skip
SIDE_EFFECT_WORDS = (
    "creates", "deletes", "removes", "updates", "modifies", "writes", "sends", "publishes", "mutates",
    "changes", "inserts", "drops", "side effect", "not idempotent", "destructive", "irreversible",
    "will create", "will delete", "will update", "will modify",
)  # fmt: skip
ACTION_VERBS = (
    "get", "fetch", "read", "list", "search", "find", "query", "create", "add", "insert", "write", "post",
    "send", "publish", "update", "modify", "patch", "set", "change", "replace", "delete", "remove",
    "destroy", "drop", "clear", "validate", "check", "verify", "test", "convert", "transform", "parse",
    "format",
)  # fmt: skip
USER_FACING = (
    "query", "search", "email", "url", "uri", "phone", "address", "username", "name", "title", "message",
    "prompt", "question", "filter", "sort", "locale", "timezone", "language", "currency", "country", "region",
)  # fmt: skip
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

SIMILAR_DESCRIPTIONS = 0.80
LIST_TOKENS = 8000
TOOL_TOKENS = 1000
MAX_TOOLS = 20
MAX_DEPTH = 3
SHORT_DESCRIPTION = 20
LONG_DESCRIPTION = 500
MAX_ACTION_VERBS = 3
PROPAGATION_CONFIDENCE = 0.65
CYCLE_CONFIDENCE = 0.75


def _description(tool: Tool) -> str:
    text = tool.get("description")
    return text if isinstance(text, str) else ""


def _name(tool: Tool) -> str:
    return str(tool.get("name", ""))


def _properties(tool: Tool) -> dict[str, Mapping[str, Any]]:
    schema = tool.get("inputSchema")
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(props, Mapping):
        return {}
    return {str(key): value for key, value in props.items() if isinstance(value, Mapping)}


def _required(tool: Tool) -> set[str]:
    schema = tool.get("inputSchema")
    required = schema.get("required") if isinstance(schema, Mapping) else None
    return {str(name) for name in required} if isinstance(required, list) else set()


def _said(prop: Mapping[str, Any]) -> str:
    text = prop.get("description")
    return text.strip() if isinstance(text, str) else ""


def _tokens(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()) // 4


# Rules over one tool ------------------------------------------------------------------------------


def empty_description(tool: Tool) -> Iterator[Finding]:
    if not _description(tool).strip():
        yield _finding(
            _name(tool),
            "E101",
            "empty-description",
            "Tool has no description: an agent cannot tell when to use it.",
            "description",
        )


def vague_description(tool: Tool) -> Iterator[Finding]:
    text = _description(tool).strip().lower()
    if text and (text in VAGUE_DESCRIPTIONS or (len(text) < 10 and " " not in text)):
        yield _finding(
            _name(tool),
            "W101",
            "vague-description",
            f"Tool description is too generic: {_description(tool)!r}.",
            "description",
        )


def parameter_rules(tool: Tool) -> Iterator[Finding]:
    """E102, E103, W102, W104 and W103 (unconstrained required string), per property."""
    name, required = _name(tool), _required(tool)
    for param, prop in _properties(tool).items():
        said = _said(prop)
        field = f"args.{param}"
        if "type" not in prop:
            yield _finding(
                name,
                "E102",
                "untyped-parameter",
                f"Parameter {param!r} has no type: agents will send values of the wrong type.",
                f"{field}.type",
            )
        if param in required and not said:
            yield _finding(
                name,
                "E103",
                "undescribed-required-parameter",
                f"Required parameter {param!r} has no description: agents will guess its value.",
                f"{field}.description",
            )
        if param not in required and not said:
            yield _finding(
                name,
                "W102",
                "undescribed-optional-parameter",
                f"Optional parameter {param!r} has no description.",
                f"{field}.description",
            )
        if param.lower() in GENERIC_NAMES and not said:
            yield _finding(
                name,
                "W104",
                "generic-parameter-name",
                f"Parameter {param!r} has a generic name and no description.",
                field,
            )
        constrained = any(key in prop for key in ("enum", "pattern", "examples", "default"))
        if prop.get("type") == "string" and param in required and not constrained:
            yield _finding(
                name,
                "W103",
                "unconstrained-required-string",
                f"Required string parameter {param!r} has no enum, pattern, examples or default: "
                "agents may make values up.",
                field,
            )


def short_or_long_description(tool: Tool) -> Iterator[Finding]:
    text = _description(tool).strip()
    if text and len(text) < SHORT_DESCRIPTION:
        yield _finding(
            _name(tool),
            "W111",
            "description-length",
            f"Description is only {len(text)} characters: too short to say when to use the tool.",
            "description",
        )
    elif len(text) > LONG_DESCRIPTION:
        yield _finding(
            _name(tool),
            "W111",
            "description-length",
            f"Description is {len(text)} characters: over {LONG_DESCRIPTION} wastes context.",
            "description",
        )


def _depth(props: Mapping[str, Any], level: int) -> int:
    deepest = level
    for prop in props.values():
        if not isinstance(prop, Mapping):
            continue
        nested = prop.get("properties")
        if isinstance(nested, Mapping) and nested:
            deepest = max(deepest, _depth(nested, level + 1))
        items = prop.get("items")
        inner = items.get("properties") if isinstance(items, Mapping) else None
        if isinstance(inner, Mapping) and inner:
            deepest = max(deepest, _depth(inner, level + 1))
    return deepest


def deep_schema(tool: Tool) -> Iterator[Finding]:
    depth = _depth(_properties(tool), 1)
    if depth > MAX_DEPTH:
        yield _finding(
            _name(tool),
            "W114",
            "deep-schema",
            f"Input schema is {depth} levels deep: agents struggle beyond {MAX_DEPTH}.",
            "inputSchema",
        )


def costly_tool(tool: Tool) -> Iterator[Finding]:
    tokens = _tokens(tool)
    if tokens > TOOL_TOKENS:
        yield _finding(
            _name(tool),
            "W115",
            "costly-definition",
            f"Tool definition takes ~{tokens} tokens: simplify its schema or description.",
            "token_cost",
        )


def silent_output(tool: Tool) -> Iterator[Finding]:
    text = _description(tool)
    if text and not any(word in text.lower() for word in RETURN_WORDS):
        yield _finding(
            _name(tool),
            "W116",
            "undescribed-output",
            "Description does not say what the tool returns.",
            "description",
        )


def _verb_count(text: str) -> int:
    padded = f" {text.lower()} "
    return sum(1 for verb in ACTION_VERBS if any(f" {verb}{end} " in padded for end in ("", "s", "ing")))


def overloaded_tool(tool: Tool) -> Iterator[Finding]:
    count = _verb_count(_description(tool))
    if count > MAX_ACTION_VERBS:
        yield _finding(
            _name(tool),
            "W103",
            "overloaded-tool",
            f"Description has {count} action verbs: the tool may do too many things.",
            "description",
        )


def hidden_side_effects(tool: Tool) -> Iterator[Finding]:
    name, text = _name(tool), _description(tool).lower()
    if not text or not any(verb in name.lower() for verb in MUTATION_VERBS):
        return
    if not any(word in text for word in SIDE_EFFECT_WORDS):
        yield _finding(
            name,
            "W108",
            "hidden-side-effects",
            f"Tool name {name!r} suggests it changes something but its description does not say so.",
            "description",
        )


def missing_examples(tool: Tool) -> Iterator[Finding]:
    for param, prop in _properties(tool).items():
        if any(word in param.lower() for word in USER_FACING) and not any(
            key in prop for key in ("examples", "enum", "default")
        ):
            yield _finding(
                _name(tool),
                "W109",
                "missing-examples",
                f"User-facing parameter {param!r} has no examples.",
                f"args.{param}.examples",
            )


def description_drift(tool: Tool) -> Iterator[Finding]:
    text, props = _description(tool).lower(), _properties(tool)
    if not text or len(props) < 2:
        return
    mentioned = sum(
        1
        for param in props
        if param.lower() in text or any(len(w) > 2 and w in text for w in param.lower().split("_"))
    )
    if mentioned / len(props) < 0.5:
        yield _finding(
            _name(tool),
            "W110",
            "description-drift",
            f"Only {mentioned}/{len(props)} parameters are mentioned in the description.",
            "description",
        )


def sensitive_parameters(tool: Tool) -> Iterator[Finding]:
    for param, prop in _properties(tool).items():
        lower = param.lower()
        if lower in COUNTING_TOKENS or prop.get("writeOnly") is True:
            continue
        auth_token = lower == "token" or any(token in lower for token in AUTH_TOKENS)
        if auth_token or any(pattern in lower for pattern in SECRET_PATTERNS):
            yield _finding(
                _name(tool),
                "E112",
                "secret-parameter",
                f"Parameter {param!r} looks like a secret: mark it writeOnly so agents do not log "
                "or cache it.",
                f"args.{param}",
            )


TOOL_RULES: tuple[Callable[[Tool], Iterator[Finding]], ...] = (
    empty_description,
    vague_description,
    parameter_rules,
    sensitive_parameters,
    short_or_long_description,
    deep_schema,
    costly_tool,
    silent_output,
    overloaded_tool,
    hidden_side_effects,
    missing_examples,
    description_drift,
)


# Rules over the whole list ------------------------------------------------------------------------


def _bigrams(text: str) -> set[str]:
    return {text[index : index + 2] for index in range(len(text) - 1)}


def similar_descriptions(tools: Sequence[Tool]) -> Iterator[Finding]:
    """W105 once per tool: the first later tool whose description is at least 80 % similar."""
    texts = [_description(tool).strip() for tool in tools]
    grams = [_bigrams(text.lower()) for text in texts]
    for index, first in enumerate(tools):
        if not texts[index]:
            continue
        for other in range(index + 1, len(tools)):
            if texts[other] and (score := _dice(texts, grams, index, other)) >= SIMILAR_DESCRIPTIONS:
                yield _finding(
                    _name(first),
                    "W105",
                    "similar-descriptions",
                    f"Tools {_name(first)!r} and {_name(tools[other])!r} have {score:.0%} similar "
                    "descriptions: agents may confuse them.",
                    "description",
                )
                break


def _dice(texts: list[str], grams: list[set[str]], a: int, b: int) -> float:
    if texts[a] == texts[b]:
        return 1.0
    left, right = grams[a], grams[b]
    if not left or not right:
        return 0.0
    return 2 * len(left & right) / (len(left) + len(right))


def bloated_list(tools: Sequence[Tool]) -> Iterator[Finding]:
    tokens = sum(_tokens(tool) for tool in tools)
    if tokens > LIST_TOKENS:
        yield _finding(
            ALL_TOOLS,
            "W106",
            "bloated-list",
            f"The tool list takes ~{tokens} tokens of the agent's context.",
            "schema_size",
        )


def duplicate_names(tools: Sequence[Tool]) -> Iterator[Finding]:
    for name, count in Counter(_name(tool) for tool in tools).items():
        if count > 1:
            yield _finding(
                name,
                "E113",
                "duplicate-name",
                f"Tool name {name!r} appears {count} times: names must be unique.",
                "name",
            )


def too_many_tools(tools: Sequence[Tool]) -> Iterator[Finding]:
    if len(tools) > MAX_TOOLS:
        yield _finding(
            SERVER,
            "W112",
            "too-many-tools",
            f"The server lists {len(tools)} tools: choosing among more than {MAX_TOOLS} is "
            "error-prone for agents.",
            "tool_count",
        )


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


def _jaccard(a: str, b: str) -> float:
    left = {word for word in a.lower().split() if len(word) > 2}
    right = {word for word in b.lower().split() if len(word) > 2}
    if not left or not right:
        return 0.0
    return len(left & right) / len(left | right)


def _confidence(a: _Field, b: _Field, a_text: str, b_text: str) -> float:
    if _common(a.name) or _common(b.name):
        return 0.0
    names = _name_similarity(a.name, b.name)
    if names < 0.8:
        return 0.0
    score = names * 0.5
    if a.kind and a.kind == b.kind:
        score += 0.3
    elif b.kind in _COMPATIBLE.get(a.kind, set()):
        score += 0.15
    if a_text and b_text:
        score += _jaccard(a_text, b_text) * 0.2
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
        for name, prop in _properties(tool).items()
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
    found: list[tuple[tuple[int, int, int, int], _Flow]] = []
    for a_name in names:
        for b_name in names:
            if _name_similarity(a_name, b_name) < 0.8:
                continue
            for source, a_index in holders[a_name]:
                for target, b_index in holders[b_name]:
                    if source == target:
                        continue
                    a, b = fields[source][a_index], fields[target][b_index]
                    source_text, target_text = _description(tools[source]), _description(tools[target])
                    score = _confidence(a, b, source_text, target_text)
                    if score >= 0.6:
                        flow = _Flow(_name(tools[source]), a.name, _name(tools[target]), b.name, score)
                        found.append(((source, target, a_index, b_index), flow))
    return [flow for _, flow in sorted(found, key=lambda item: item[0])]


def free_text_propagation(tools: Sequence[Tool]) -> Iterator[Finding]:
    kinds = {_name(tool): {field.name: field for field in _fields(tool)} for tool in tools}
    seen: set[tuple[str, str, str]] = set()
    for flow in flows(tools):
        key = (flow.source, flow.field, flow.target)
        if flow.confidence < PROPAGATION_CONFIDENCE or key in seen:
            continue
        if kinds[flow.source][flow.field].free and kinds[flow.target][flow.target_field].free:
            seen.add(key)
            yield _finding(
                flow.source,
                "E105",
                "free-text-propagation",
                f"Unconstrained string {flow.field!r} flows from {flow.source!r} to {flow.target!r}: "
                "agents may pass free text where structured data is expected.",
                f"args.{flow.field}",
            )


def circular_dependencies(tools: Sequence[Tool]) -> Iterator[Finding]:
    graph: dict[str, list[str]] = {}
    for flow in flows(tools):
        if flow.confidence >= CYCLE_CONFIDENCE and flow.target not in graph.setdefault(flow.source, []):
            graph[flow.source].append(flow.target)
    cycles: set[tuple[str, ...]] = set()
    for start in graph:
        stack: list[tuple[str, list[str]]] = [(start, [start])]
        while stack:
            node, path = stack.pop()
            for neighbour in graph.get(node, []):
                if neighbour == start:
                    cycles.add(tuple(sorted(path)))
                elif neighbour not in path and len(path) < len(graph):
                    stack.append((neighbour, [*path, neighbour]))
    for cycle in sorted(cycles):
        yield _finding(
            cycle[0],
            "E107",
            "circular-dependency",
            f"Circular dependency between {', '.join(cycle)}: agents may loop.",
            "dependencies",
        )


LIST_RULES: tuple[Callable[[Sequence[Tool]], Iterator[Finding]], ...] = (
    similar_descriptions,
    bloated_list,
    duplicate_names,
    free_text_propagation,
    circular_dependencies,
    too_many_tools,
)

RULE_CODES = (
    "E101", "E102", "E103", "E105", "E107", "E112", "E113", "E301", "W101", "W102", "W103", "W104", "W105",
    "W106", "W107", "W108", "W109", "W110", "W111", "W112", "W114", "W115", "W116",
)  # fmt: skip
"""Every code a finding can carry (W103 covers two rules: unconstrained required string, overloaded tool)."""


def lint_tools(tools: Sequence[Tool]) -> list[Finding]:
    """Every schema finding for the tool list: per-tool rules in tool order, then the list-wide rules."""
    findings = [finding for tool in tools for rule in TOOL_RULES for finding in rule(tool)]
    findings.extend(finding for rule in LIST_RULES for finding in rule(tools))
    return findings


def grade(findings: Sequence[Finding], *, skip: frozenset[str], strict: bool) -> list[Finding]:
    """Drop findings of skipped codes, then (with `strict`) promote warnings to errors."""
    kept = [finding for finding in findings if finding.code not in skip]
    if strict:
        kept = [Finding(f.tool, f.code, Severity.ERROR, f.message, f.field, f.rule) for f in kept]
    return kept
