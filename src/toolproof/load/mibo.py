"""Mibo test cases, in JSON or YAML.

`context` may stand beside `scenario` or wrap the case (`{"context": {...}, "content": {...}}`). A case has
`input_utterance` or `turns` (each with optional per-turn `assertions`), and `assertions: {procedural: [...],
semantic: [...]}`. Procedural targets: `node_call` (MUST_CALL, MUST_NOT_CALL, CALL_COUNT; arguments with
matchers, index, strict, forbidden arguments, nested `expected_tool_calls`), `json_match`, `response_regex`,
`json_schema`, `http_status`, `response_time`, `token_limit`. Semantic assertions are judge checks with a
score threshold (default 0.8). A plain literal where a matcher may stand means `exact`. Matcher expressions
are checked when the file loads (syntax, known functions, names that are built-ins or `context` variables),
and a date matcher's `value` must be an ISO 8601 date or date-time.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolproof.load import shapes
from toolproof.load.errors import LoadError
from toolproof.load.reader import Reader, source_ref
from toolproof.load.shapes import mibo_content as _content
from toolproof.load.yaml_source import KeyPath, as_document
from toolproof.model.scenario import (
    AgentCase,
    AgentTurn,
    AnyMatcher,
    Assertion,
    CallCheck,
    ContainsMatcher,
    DateMatcher,
    ExactMatcher,
    FieldCheck,
    JudgeCheck,
    LatencyCheck,
    Matcher,
    OneOfMatcher,
    RegexCheck,
    RegexMatcher,
    SchemaCheck,
    SchemaMatcher,
    StatusCheck,
    TokenLimitCheck,
)

detect = shapes.mibo
"""The shape test of this dialect (`load/shapes.py`)."""

CASE_KEYS = frozenset(
    {
        "scenario",
        "name",
        "id",
        "input_utterance",
        "turns",
        "custom_body",
        "context",
        "optimization_target",
        "test_dimension",
        "assertions",
        "status",
        "tags",
        "description",
    }
)
TURN_KEYS = frozenset({"input_utterance", "assertions"})
ASSERTIONS_KEYS = frozenset({"procedural", "semantic"})
COMMON = ("target", "id", "depends_on")
TARGET_KEYS: dict[str, tuple[str, ...]] = {
    "node_call": (
        "condition",
        "expected_name",
        "expected_arguments",
        "expected_index",
        "strict",
        "forbidden_arguments",
        "expected_tool_calls",
        "expected_count",
    ),
    "json_match": ("field", "expected_value", "condition"),
    "response_regex": ("pattern", "should_match"),
    "json_schema": ("schema", "field"),
    "http_status": ("expected_status",),
    "response_time": ("max_ms",),
    "token_limit": ("max_total_tokens", "max_output_tokens", "max_input_tokens"),
}
TOOL_CALL_KEYS = (
    "condition",
    "expected_name",
    "expected_arguments",
    "expected_index",
    "strict",
    "forbidden_arguments",
    "expected_count",
    "id",
    "depends_on",
)
SEMANTIC_KEYS = (
    "criteria",
    "threshold",
    "type",
    "negative_constraints",
    "target_node",
    "output_key",
    "id",
    "depends_on",
)

CONDITIONS = {"MUST_CALL": "called", "MUST_NOT_CALL": "not_called", "CALL_COUNT": "count"}
MATCHERS = ("exact", "contains", "regex", "date", "one_of", "any")
MATCHER_KEYS = ("matcher", "value", "expression", "variants", "tolerance_minutes", "optional")
SCHEMA_KEYWORDS = frozenset(
    {
        "type",
        "pattern",
        "enum",
        "const",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "properties",
        "required",
        "items",
        "minItems",
        "maxItems",
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        "$ref",
        "$schema",
        "additionalProperties",
    }
)
DEFAULT_THRESHOLD = 0.8


def load(document: object, source: Path) -> list[AgentCase | LoadError]:
    """The test case of one document, or its load errors."""
    doc = as_document(document, source)
    return _Case(Reader(doc)).load()


class _Case:
    def __init__(self, reader: Reader) -> None:
        self.r = reader
        self.placed: dict[int, KeyPath] = {}
        self.context: dict[str, Any] = {}  # the case's variables, which expressions may name

    def load(self) -> list[AgentCase | LoadError]:
        r = self.r
        outer = r.document.data
        data, base = _content(outer)
        if base:
            r.keys(outer, (), ("context", "content"))
        r.keys(data, base, CASE_KEYS, required=("scenario",))
        scenario = r.text(data.get("scenario", ""), (*base, "scenario")) or ""
        context_at: KeyPath = ("context",) if base and "context" in outer else (*base, "context")
        raw_context = outer.get("context") if base and "context" in outer else data.get("context", {})
        context = self.context = r.mapping(raw_context, context_at) or {}
        turns: list[AgentTurn] = []
        if "input_utterance" in data and "turns" in data:
            r.fail((*base, "turns"), "give either input_utterance or turns, not both")
        if "input_utterance" in data:
            user = r.text(data["input_utterance"], (*base, "input_utterance")) or ""
            turns.append(AgentTurn(user=user, line=r.where((*base, "input_utterance"))[0]))
        elif "turns" in data:
            turns = self.turns(data["turns"], (*base, "turns"))
        checks = self.assertions(data.get("assertions", {}), (*base, "assertions"))
        if r.errors:
            return list(r.errors)
        metadata = {
            key: data[key]
            for key in ("optimization_target", "test_dimension", "status", "tags", "description")
            if key in data
        }
        name = data.get("name") or scenario
        case = AgentCase(
            name=str(name),
            id=str(data["id"]) if "id" in data else None,
            source=source_ref(r.document),
            dialect="mibo",
            turns=tuple(turns),
            assertions=tuple(checks),
            context=dict(context),
            custom_body=data.get("custom_body"),
            metadata=metadata,
        )
        return r.finish(case, self.placed)

    def turns(self, value: Any, path: KeyPath) -> list[AgentTurn]:
        if not isinstance(value, list):
            self.r.fail(path, "must be a list of turns")
            return []
        found = []
        for index, item in enumerate(value):
            here = (*path, index)
            data = self.r.mapping(item, here)
            if data is None:
                continue
            self.r.keys(data, here, TURN_KEYS, required=("input_utterance",))
            user = self.r.text(data.get("input_utterance", ""), (*here, "input_utterance")) or ""
            checks = self.assertions(data.get("assertions", {}), (*here, "assertions"))
            found.append(AgentTurn(user=user, assertions=tuple(checks), line=self.r.where(here)[0]))
        return found

    def assertions(self, value: Any, path: KeyPath) -> list[Assertion]:
        data = self.r.mapping(value, path)
        if data is None or not self.r.keys(data, path, ASSERTIONS_KEYS):
            return []
        found: list[Assertion] = []
        for kind, read in (("procedural", self.procedural), ("semantic", self.semantic)):
            items = data.get(kind) or []
            if not isinstance(items, list):
                self.r.fail((*path, kind), "must be a list")
                continue
            for index, item in enumerate(items):
                here = (*path, kind, index)
                check = read(item, here)
                if check is not None:
                    self.placed[id(check)] = here
                    found.append(check)
        return found

    def common(self, data: Mapping[str, Any], path: KeyPath) -> dict[str, Any]:
        fields: dict[str, Any] = {}
        if "id" in data:
            fields["id"] = self.r.text(data["id"], (*path, "id"))
        if "depends_on" in data:
            fields["depends_on"] = self.r.depends(data["depends_on"], (*path, "depends_on"))
        return fields

    def procedural(self, value: Any, path: KeyPath) -> Assertion | None:
        r = self.r
        data = r.mapping(value, path)
        if data is None:
            return None
        target = data.get("target")
        if not isinstance(target, str) or target not in TARGET_KEYS:
            known = ", ".join(TARGET_KEYS)
            r.fail(
                (*path, "target"),
                f"{target!r} is not one of {known}" if "target" in data else "required key 'target' missing",
                f"targets: {known}",
            )
            return None
        if not r.keys(data, path, (*COMMON, *TARGET_KEYS[target])):
            return None
        before = len(r.errors)
        fields = getattr(self, target)(data, path)
        if fields is None or len(r.errors) > before:
            return None
        factory, values = fields
        return r.build(path, factory, **values, **self.common(data, path))

    def node_call(
        self, data: Mapping[str, Any], path: KeyPath, level: str = "auto"
    ) -> tuple[Any, dict[str, Any]] | None:
        r = self.r
        if "expected_name" not in data:
            r.fail(path, "required key 'expected_name' missing")
            return None
        condition = data.get("condition", "MUST_CALL")
        if not isinstance(condition, str) or condition not in CONDITIONS:
            r.fail((*path, "condition"), f"{condition!r} is not one of {', '.join(CONDITIONS)}")
            return None
        fields: dict[str, Any] = {
            "name": r.text(data["expected_name"], (*path, "expected_name")),
            "condition": CONDITIONS[condition],
            "level": level,
        }
        if condition == "CALL_COUNT":
            if "expected_count" not in data:
                r.fail(path, "CALL_COUNT needs expected_count")
                return None
            fields["count"] = r.integer(data["expected_count"], (*path, "expected_count"))
        elif "expected_count" in data:
            r.fail((*path, "expected_count"), "expected_count goes with condition CALL_COUNT")
        if "expected_arguments" in data:
            arguments = r.mapping(data["expected_arguments"], (*path, "expected_arguments")) or {}
            fields["arguments"] = {
                name: matcher
                for name, item in arguments.items()
                if (matcher := self.matcher(item, (*path, "expected_arguments", name))) is not None
            }
        if "expected_index" in data:
            fields["index"] = r.integer(data["expected_index"], (*path, "expected_index"))
        if "strict" in data:
            fields["strict"] = r.boolean(data["strict"], (*path, "strict"))
        if "forbidden_arguments" in data:
            fields["forbidden_arguments"] = tuple(
                r.texts(data["forbidden_arguments"], (*path, "forbidden_arguments"), one_or_many=False) or ()
            )
        nested = data.get("expected_tool_calls") or []
        if not isinstance(nested, list):
            r.fail((*path, "expected_tool_calls"), "must be a list")
            nested = []
        children = []
        for index, item in enumerate(nested):
            here = (*path, "expected_tool_calls", index)
            child = r.mapping(item, here)
            if child is None or not r.keys(child, here, TOOL_CALL_KEYS):
                continue
            made = self.node_call(child, here, level="tool")
            if made is not None:
                built = r.build(here, made[0], **made[1], **self.common(child, here))
                if built is not None:
                    children.append(built)
        fields["calls"] = tuple(children)
        return CallCheck, fields

    def json_match(self, data: Mapping[str, Any], path: KeyPath) -> tuple[Any, dict[str, Any]] | None:
        r = self.r
        if "field" not in data or "expected_value" not in data:
            r.fail(path, "json_match needs field and expected_value")
            return None
        condition = data.get("condition", "EQUALS")
        if condition not in ("EQUALS", "NOT_EQUALS"):
            r.fail((*path, "condition"), f"{condition!r} is not one of EQUALS, NOT_EQUALS")
            return None
        expected = self.matcher(data["expected_value"], (*path, "expected_value"))
        if expected is None:
            return None
        return FieldCheck, {
            "field": r.text(data["field"], (*path, "field")),
            "expected": expected,
            "negate": condition == "NOT_EQUALS",
        }

    def response_regex(self, data: Mapping[str, Any], path: KeyPath) -> tuple[Any, dict[str, Any]] | None:
        if "pattern" not in data:
            self.r.fail(path, "response_regex needs pattern")
            return None
        should = self.r.boolean(data.get("should_match", True), (*path, "should_match"))
        pattern = self.r.text(data["pattern"], (*path, "pattern"), scalars=False)
        return RegexCheck, {"pattern": pattern, "flavor": "js", "should_match": should}

    def json_schema(self, data: Mapping[str, Any], path: KeyPath) -> tuple[Any, dict[str, Any]] | None:
        schema = self.r.mapping(data.get("schema"), (*path, "schema"))
        if schema is None:
            return None
        field = self.r.text(data["field"], (*path, "field")) if "field" in data else None
        return SchemaCheck, {"json_schema": schema, "field": field}

    def http_status(self, data: Mapping[str, Any], path: KeyPath) -> tuple[Any, dict[str, Any]] | None:
        if "expected_status" not in data:
            self.r.fail(path, "http_status needs expected_status")
            return None
        return StatusCheck, {"expected": self.r.integer(data["expected_status"], (*path, "expected_status"))}

    def response_time(self, data: Mapping[str, Any], path: KeyPath) -> tuple[Any, dict[str, Any]] | None:
        if "max_ms" not in data:
            self.r.fail(path, "response_time needs max_ms")
            return None
        return LatencyCheck, {"max_ms": self.r.number(data["max_ms"], (*path, "max_ms"), low=0)}

    def token_limit(self, data: Mapping[str, Any], path: KeyPath) -> tuple[Any, dict[str, Any]] | None:
        names = {
            "max_total_tokens": "max_total",
            "max_output_tokens": "max_output",
            "max_input_tokens": "max_input",
        }
        limits = {names[key]: self.r.integer(data[key], (*path, key)) for key in names if key in data}
        if not limits:
            self.r.fail(path, "token_limit needs at least one of max_total_tokens, max_output_tokens")
            return None
        return TokenLimitCheck, limits

    def semantic(self, value: Any, path: KeyPath) -> Assertion | None:
        r = self.r
        data = r.mapping(value, path)
        if data is None or not r.keys(data, path, SEMANTIC_KEYS, required=("criteria",)):
            return None
        kind = data.get("type", "quality_check")
        if kind not in ("quality_check", "hallucination_check"):
            r.fail((*path, "type"), f"{kind!r} is not one of quality_check, hallucination_check")
            return None
        fields: dict[str, Any] = {
            "criteria": r.text(data["criteria"], (*path, "criteria")),
            "threshold": r.number(data.get("threshold", DEFAULT_THRESHOLD), (*path, "threshold"), 0, 1),
            "grounding": kind == "hallucination_check",
        }
        if "negative_constraints" in data:
            fields["negative_constraints"] = tuple(
                r.texts(data["negative_constraints"], (*path, "negative_constraints"), one_or_many=False)
                or ()
            )
        for key, field in (("target_node", "target_node"), ("output_key", "output_key")):
            if key in data:
                fields[field] = r.text(data[key], (*path, key))
        before = len(r.errors)
        common = self.common(data, path)
        if len(r.errors) > before:
            return None
        return r.build(path, JudgeCheck, **fields, **common)

    def matcher(self, value: Any, path: KeyPath) -> Matcher | None:
        """A matcher object (`{"matcher": ...}`), or a literal meaning `exact`."""
        if not isinstance(value, Mapping) or "matcher" not in value:
            return ExactMatcher(value=value)
        r = self.r
        if not r.keys(value, path, MATCHER_KEYS):
            return None
        kind = value["matcher"]
        if kind not in MATCHERS:
            r.fail((*path, "matcher"), f"{kind!r} is not one of {', '.join(MATCHERS)}")
            return None
        optional = bool(r.boolean(value.get("optional", False), (*path, "optional")))
        expression = (
            r.expression(value["expression"], (*path, "expression"), self.context)
            if "expression" in value
            else None
        )
        if "expression" in value and expression is None:
            return None
        if kind == "any":
            return AnyMatcher(optional=optional)
        if kind == "one_of":
            return self.one_of(value, path, optional)
        if kind in ("exact", "contains"):
            if "value" not in value and expression is None:
                r.fail(path, f"the {kind} matcher needs value or expression")
                return None
            factory = ExactMatcher if kind == "exact" else ContainsMatcher
            return factory(value=value.get("value"), expression=expression, optional=optional)
        if kind == "regex":
            pattern = r.text(value.get("value"), (*path, "value"), scalars=False)
            return None if pattern is None else RegexMatcher(pattern=pattern, flavor="js", optional=optional)
        tolerance = r.number(value.get("tolerance_minutes", 0), (*path, "tolerance_minutes"), low=0) or 0
        if expression is None and not isinstance(value.get("value"), str):
            r.fail(path, "the date matcher needs expression (or a date string as value)")
            return None
        moment = r.date(value["value"], (*path, "value")) if expression is None else None
        if expression is None and moment is None:
            return None
        return DateMatcher(
            expression=expression,
            value=moment,
            tolerance_minutes=tolerance,
            optional=optional,
        )

    def one_of(self, value: Mapping[str, Any], path: KeyPath, optional: bool) -> Matcher | None:
        variants = value.get("variants")
        if not isinstance(variants, list) or not variants:
            self.r.fail((*path, "variants"), "one_of needs a non-empty list of variants")
            return None
        found: list[Matcher] = []
        for index, item in enumerate(variants):
            here = (*path, "variants", index)
            if isinstance(item, Mapping) and "matcher" not in item and SCHEMA_KEYWORDS & set(item):
                found.append(SchemaMatcher(json_schema=dict(item)))
                continue
            matcher = self.matcher(item, here)
            if matcher is None:
                return None
            found.append(matcher)
        return OneOfMatcher(variants=tuple(found), optional=optional)
