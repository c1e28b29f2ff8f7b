"""The checks of toolproof's own scenario format (the `expect:` items), read into assertion classes: one
reader method per check key, listed in `_CHECKS`."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from toolproof.load.reader import Reader, kind_of
from toolproof.load.scenario_matchers import MatcherReader
from toolproof.load.validation import suggest
from toolproof.load.yaml_source import KeyPath
from toolproof.model.scenario import (
    Assertion,
    CallCheck,
    FieldCheck,
    GuardrailCheck,
    JsonPathCheck,
    JudgeCheck,
    LatencyCheck,
    RegexCheck,
    SchemaCheck,
    SequenceCheck,
    StatusCheck,
    TextCheck,
    TokenLimitCheck,
    ToolCallCount,
    ToolInputCheck,
    ToolsCalled,
    ToolsNotCalled,
)

# --- toolproof's own format ------------------------------------------------------------------------------
COMMON_KEYS = frozenset({"id", "depends_on", "label", "when", "pass_threshold"})
COUNT_BOUNDS = {"exactly": "count", "min": "min_count", "max": "max_count"}
"""How a count is bounded, as written -> the model's field."""
SEQUENCE_MODES = ("ordered", "adjacent", "exact", "unordered", "subset", "superset")
ASSEMBLED = frozenset({CallCheck, ToolsCalled, ToolsNotCalled})
"""The checks whose every field their reader checks and types: made without building their validator (a
call check's would build every kind of matcher)."""


class CheckReader(MatcherReader):
    """Reads the checks of one document; `context` holds the case's variables, which expressions may name."""

    def __init__(self, reader: Reader) -> None:
        self.r = reader
        self.placed: dict[int, KeyPath] = {}
        self.context: dict[str, Any] = {}

    def checks(self, value: Any, path: KeyPath) -> list[Assertion]:
        if not isinstance(value, list):
            self.r.fail(path, f"must be a list of checks, got {kind_of(value)}")
            return []
        found = []
        for index, item in enumerate(value):
            check = self.check(item, (*path, index))
            if check is not None:
                self.placed[id(check)] = (*path, index)
                found.append(check)
        return found

    def check(self, item: Any, path: KeyPath) -> Assertion | None:
        r = self.r
        data = r.mapping(item, path, "a mapping with one check key")
        if data is None:
            return None
        kinds = [key for key in data if key not in COMMON_KEYS]
        if len(kinds) != 1 or kinds[0] not in _CHECKS:
            if len(kinds) == 1:
                hint = suggest(kinds[0], _CHECKS) or f"checks: {', '.join(sorted(_CHECKS))}"
                r.fail((*path, kinds[0]), "unknown check", hint)
            else:
                r.fail(
                    path,
                    f"a check has exactly one check key, found {len(kinds)}: {', '.join(kinds) or 'none'}",
                    f"checks: {', '.join(sorted(_CHECKS))}",
                )
            return None
        kind = kinds[0]
        common: dict[str, Any] = {}
        if "id" in data:
            common["id"] = r.text(data["id"], (*path, "id"))
        if "depends_on" in data:
            common["depends_on"] = r.depends(data["depends_on"], (*path, "depends_on"))
        if "label" in data:
            common["label"] = r.text(data["label"], (*path, "label"))
        if "when" in data:
            common["when"] = r.precondition(data["when"], (*path, "when"))
        if "pass_threshold" in data:
            common["pass_threshold"] = r.number(data["pass_threshold"], (*path, "pass_threshold"), 0, 1)
        before = len(r.errors)
        fields = _CHECKS[kind](self, data[kind], (*path, kind))
        if fields is None or len(r.errors) > before:
            return None
        factory, values = fields
        return r.build(path, factory, factory in ASSEMBLED, **values, **common)

    # each returns (check class, fields) or None after recording errors

    def called(
        self, value: Any, path: KeyPath, condition: str = "called"
    ) -> tuple[Any, dict[str, Any]] | None:
        if isinstance(value, str):
            return CallCheck, {"name": value, "condition": condition, "level": "tool"}
        if condition == "not_called" and isinstance(value, list):
            names = self.r.texts(value, path)
            return (ToolsNotCalled, {"tools": tuple(names)}) if names else None
        data = self.r.mapping(value, path, "a tool name or a mapping")
        if data is None:
            return None
        return self.call_fields(data, path, condition)

    def call_fields(
        self, data: dict[str, Any], path: KeyPath, condition: str, extra: Iterable[str] = ()
    ) -> tuple[Any, dict[str, Any]] | None:
        r = self.r
        allowed = {"tool", "args", "index", "strict", "forbidden_args", "forbidden_values", "error", *extra}
        if not r.keys(data, path, allowed, required=("tool",)):
            return None
        fields: dict[str, Any] = {
            "name": r.text(data["tool"], (*path, "tool")),
            "condition": condition,
            "level": "tool",
        }
        if "args" in data:
            fields["arguments"] = self.matchers(data["args"], (*path, "args"))
        if "index" in data:
            fields["index"] = r.integer(data["index"], (*path, "index"))
        if "strict" in data:
            fields["strict"] = r.boolean(data["strict"], (*path, "strict"))
        if "forbidden_args" in data:
            fields["forbidden_arguments"] = tuple(
                r.texts(data["forbidden_args"], (*path, "forbidden_args")) or ()
            )
        if "forbidden_values" in data:
            fields["forbidden_values"] = self.matchers(data["forbidden_values"], (*path, "forbidden_values"))
        if "error" in data:
            fields["is_error"] = r.boolean(data["error"], (*path, "error"))
        return CallCheck, fields

    def not_called(self, value: Any, path: KeyPath) -> tuple[Any, dict[str, Any]] | None:
        return self.called(value, path, "not_called")

    def count(self, value: Any, path: KeyPath) -> tuple[Any, dict[str, Any]] | None:
        data = self.r.mapping(value, path)
        if data is None:
            return None
        data = dict(data)
        bounds = {key: data.pop(key) for key in COUNT_BOUNDS if key in data}
        if not bounds:
            self.r.fail(path, "give exactly, min or max")
            return None
        fields = self.call_fields(data, path, "count")
        if fields is None:
            return None
        for key, bound in bounds.items():
            fields[1][COUNT_BOUNDS[key]] = self.r.integer(bound, (*path, key))
        return fields

    def tool_call_count(self, value: Any, path: KeyPath) -> tuple[Any, dict[str, Any]] | None:
        r = self.r
        data = r.mapping(value, path)
        if data is None or not r.keys(data, path, ("tool", *COUNT_BOUNDS)):
            return None
        if not any(key in data for key in COUNT_BOUNDS):
            r.fail(path, "give exactly, min or max")
            return None
        fields: dict[str, Any] = {
            COUNT_BOUNDS[key]: r.integer(data[key], (*path, key)) for key in COUNT_BOUNDS if key in data
        }
        if "tool" in data:
            fields["tool"] = r.text(data["tool"], (*path, "tool"))
        return ToolCallCount, fields

    def tools_called(self, value: Any, path: KeyPath) -> tuple[Any, dict[str, Any]] | None:
        names = self.r.texts(value, path)
        return (ToolsCalled, {"tools": tuple(names)}) if names else None

    def tools_not_called(self, value: Any, path: KeyPath) -> tuple[Any, dict[str, Any]] | None:
        names = self.r.texts(value, path)
        return (ToolsNotCalled, {"tools": tuple(names)}) if names else None

    def sequence(
        self, value: Any, path: KeyPath, forbidden: bool = False
    ) -> tuple[Any, dict[str, Any]] | None:
        if isinstance(value, list):
            names = self.r.texts(value, path, one_or_many=False)
            return (
                None
                if names is None
                else (SequenceCheck, {"sequences": (tuple(names),), "forbidden": forbidden})
            )
        data = self.r.mapping(value, path, "a list of tool names or a mapping")
        if data is None:
            return None
        allowed = (*SEQUENCE_MODES, "any_of")
        if not self.r.keys(data, path, allowed) or len(data) != 1:
            if len(data) != 1:
                self.r.fail(path, f"give one of {', '.join(allowed)}")
            return None
        ((mode, listed),) = data.items()
        if mode == "any_of":
            if not isinstance(listed, list) or not listed:
                self.r.fail((*path, mode), "must be a non-empty list of tool-name lists")
                return None
            found = [self.r.texts(each, (*path, mode, i), one_or_many=False) for i, each in enumerate(listed)]
            if any(each is None for each in found):
                return None
            return SequenceCheck, {
                "mode": "exact",
                "sequences": tuple(tuple(each or ()) for each in found),
                "forbidden": forbidden,
            }
        names = self.r.texts(listed, (*path, mode), one_or_many=False)
        return (
            None
            if names is None
            else (SequenceCheck, {"mode": mode, "sequences": (tuple(names),), "forbidden": forbidden})
        )

    def not_sequence(self, value: Any, path: KeyPath) -> tuple[Any, dict[str, Any]] | None:
        return self.sequence(value, path, forbidden=True)

    def node(self, value: Any, path: KeyPath) -> tuple[Any, dict[str, Any]] | None:
        r = self.r
        data = r.mapping(value, path)
        if data is None or not r.keys(
            data,
            path,
            ("name", "args", "index", "strict", "forbidden_args", "calls", "not"),
            required=("name",),
        ):
            return None
        renamed = {
            "tool" if key == "name" else key: item
            for key, item in data.items()
            if key not in ("calls", "not")
        }
        not_run = bool(data.get("not"))
        fields = self.call_fields(renamed, path, "not_called" if not_run else "called")
        if fields is None:
            return None
        fields[1]["level"] = "node"
        nested = []
        for index, item in enumerate(data.get("calls", [])):
            child = self.check(item, (*path, "calls", index))
            if isinstance(child, CallCheck):
                nested.append(child.model_copy(update={"level": "tool"}))
            elif child is not None:
                r.fail((*path, "calls", index), "a node's calls take called, not_called or count checks only")
        fields[1]["calls"] = tuple(nested)
        return fields

    def tool_input(self, value: Any, path: KeyPath) -> tuple[Any, dict[str, Any]] | None:
        r = self.r
        data = r.mapping(value, path)
        if data is None or not r.keys(
            data, path, ("tool", "contains", "regex", "jsonpath", "equals"), required=("tool",)
        ):
            return None
        ops = [op for op in ("contains", "regex", "jsonpath") if op in data]
        if len(ops) != 1:
            r.fail(path, "give one of contains, regex or jsonpath")
            return None
        op = ops[0]
        fields: dict[str, Any] = {
            "tool": r.text(data["tool"], (*path, "tool")),
            "op": op,
            "value": r.text(data[op], (*path, op)),
        }
        if "equals" in data:
            fields |= {"has_equals": True, "equals": data["equals"]}
        return ToolInputCheck, fields

    def reply(self, value: Any, path: KeyPath) -> tuple[Any, dict[str, Any]] | None:
        r = self.r
        data = r.mapping(value, path)
        ops = ("contains", "not_contains", "starts_with", "ends_with", "equals")
        if data is None or not r.keys(data, path, (*ops, "case_sensitive", "trim")):
            return None
        given = [op for op in ops if op in data]
        if len(given) != 1:
            r.fail(path, f"give one of {', '.join(ops)}")
            return None
        values = r.texts(data[given[0]], (*path, given[0]))
        if values is None:
            return None
        sensitive = r.boolean(data.get("case_sensitive", False), (*path, "case_sensitive"))
        trim = r.boolean(data.get("trim", False), (*path, "trim"))
        return TextCheck, {
            "op": given[0],
            "values": tuple(values),
            "ignore_case": not sensitive,
            "trim": bool(trim),
        }

    def regex(self, value: Any, path: KeyPath) -> tuple[Any, dict[str, Any]] | None:
        r = self.r
        if isinstance(value, str):
            return RegexCheck, {"pattern": value}
        data = r.mapping(value, path, "a pattern or a mapping")
        if data is None or not r.keys(
            data, path, ("pattern", "flavor", "ignore_case", "match"), required=("pattern",)
        ):
            return None
        fields: dict[str, Any] = {"pattern": r.text(data["pattern"], (*path, "pattern"), scalars=False)}
        if "flavor" in data:
            fields["flavor"] = data["flavor"]
        if "ignore_case" in data:
            fields["ignore_case"] = r.boolean(data["ignore_case"], (*path, "ignore_case"))
        if "match" in data:
            fields["should_match"] = r.boolean(data["match"], (*path, "match"))
        return RegexCheck, fields

    def jsonpath(self, value: Any, path: KeyPath) -> tuple[Any, dict[str, Any]] | None:
        r = self.r
        if isinstance(value, str):
            return JsonPathCheck, {"path": value}
        data = r.mapping(value, path, "a path or a mapping")
        if data is None or not r.keys(data, path, ("path", "equals", "exists"), required=("path",)):
            return None
        fields: dict[str, Any] = {"path": r.text(data["path"], (*path, "path"))}
        if "equals" in data:
            fields |= {"mode": "equals", "equals": data["equals"]}
        elif "exists" in data:
            exists = r.boolean(data["exists"], (*path, "exists"))
            fields["mode"] = "not_exists" if exists is False else "exists"
        return JsonPathCheck, fields

    def field(self, value: Any, path: KeyPath) -> tuple[Any, dict[str, Any]] | None:
        r = self.r
        data = r.mapping(value, path)
        if data is None or not r.keys(data, path, ("path", "matches", "not"), required=("path", "matches")):
            return None
        expected = self.matcher(data["matches"], (*path, "matches"))
        negate = r.boolean(data.get("not", False), (*path, "not"))
        if expected is None:
            return None
        return FieldCheck, {
            "field": r.text(data["path"], (*path, "path")),
            "expected": expected,
            "negate": bool(negate),
        }

    def schema(self, value: Any, path: KeyPath) -> tuple[Any, dict[str, Any]] | None:
        data = self.r.mapping(value, path)
        if data is None:
            return None
        if "schema" not in data:
            return SchemaCheck, {"json_schema": data}
        if not self.r.keys(data, path, ("schema", "field")):
            return None
        schema = self.r.mapping(data["schema"], (*path, "schema"))
        field = self.r.text(data["field"], (*path, "field")) if "field" in data else None
        return None if schema is None else (SchemaCheck, {"json_schema": schema, "field": field})

    def http_status(self, value: Any, path: KeyPath) -> tuple[Any, dict[str, Any]] | None:
        status = self.r.integer(value, path, minimum=100)
        return None if status is None else (StatusCheck, {"expected": status})

    def latency(self, value: Any, path: KeyPath) -> tuple[Any, dict[str, Any]] | None:
        data = self.r.mapping(value, path)
        if data is None or not self.r.keys(data, path, ("max_ms",), required=("max_ms",)):
            return None
        limit = self.r.number(data["max_ms"], (*path, "max_ms"), low=0)
        return None if limit is None else (LatencyCheck, {"max_ms": limit})

    def tokens(self, value: Any, path: KeyPath) -> tuple[Any, dict[str, Any]] | None:
        data = self.r.mapping(value, path)
        names = ("max_total", "max_input", "max_output")
        if data is None or not self.r.keys(data, path, names):
            return None
        if not data:
            self.r.fail(path, "give at least one of max_total, max_input, max_output")
            return None
        return TokenLimitCheck, {key: self.r.integer(data[key], (*path, key)) for key in data}

    def guardrail(self, value: Any, path: KeyPath) -> tuple[Any, dict[str, Any]] | None:
        data = self.r.mapping(value, path)
        if data is None or not self.r.keys(data, path, ("name", "triggered")):
            return None
        fields: dict[str, Any] = {
            "expected": self.r.boolean(data.get("triggered", True), (*path, "triggered"))
        }
        if "name" in data:
            fields["name"] = self.r.text(data["name"], (*path, "name"))
        return GuardrailCheck, fields

    def judge(self, value: Any, path: KeyPath) -> tuple[Any, dict[str, Any]] | None:
        r = self.r
        if isinstance(value, str):
            return JudgeCheck, {"criteria": value}
        data = r.mapping(value, path, "criteria text or a mapping")
        allowed = ("criteria", "threshold", "not", "grounding", "node", "key")
        if data is None or not r.keys(data, path, allowed, required=("criteria",)):
            return None
        fields: dict[str, Any] = {"criteria": r.text(data["criteria"], (*path, "criteria"))}
        if "threshold" in data:
            fields["threshold"] = r.number(data["threshold"], (*path, "threshold"), 0, 1)
        if "not" in data:
            fields["negative_constraints"] = tuple(r.texts(data["not"], (*path, "not")) or ())
        if "grounding" in data:
            fields["grounding"] = r.boolean(data["grounding"], (*path, "grounding"))
        if "node" in data:
            fields["target_node"] = r.text(data["node"], (*path, "node"))
        if "key" in data:
            fields["output_key"] = r.text(data["key"], (*path, "key"))
        return JudgeCheck, fields


_Fields = tuple[Any, dict[str, Any]] | None
_CHECKS: dict[str, Callable[[CheckReader, Any, KeyPath], _Fields]] = {
    "called": CheckReader.called,
    "not_called": CheckReader.not_called,
    "count": CheckReader.count,
    "tool_call_count": CheckReader.tool_call_count,
    "tools_called": CheckReader.tools_called,
    "tools_not_called": CheckReader.tools_not_called,
    "sequence": CheckReader.sequence,
    "not_sequence": CheckReader.not_sequence,
    "node": CheckReader.node,
    "tool_input": CheckReader.tool_input,
    "reply": CheckReader.reply,
    "regex": CheckReader.regex,
    "jsonpath": CheckReader.jsonpath,
    "field": CheckReader.field,
    "schema": CheckReader.schema,
    "http_status": CheckReader.http_status,
    "latency": CheckReader.latency,
    "tokens": CheckReader.tokens,
    "guardrail": CheckReader.guardrail,
    "judge": CheckReader.judge,
}
