"""toolproof's own agent scenario format, and the document reader every agent dialect loader uses.

One YAML document is one case:

```yaml
name: refund flow                 # default: the file name
id: refund                        # matches recorded runs that name their scenario
context: {ORDER: ORD-9921}        # variables for expressions
prompt: I was charged twice       # one user turn; or `turns: [{user: ..., expect: [...]}, ...]`
judge_context: {prompt: true, tool_sequence: true, tool_inputs: true, tool_outputs: true, tool_catalog: true}
servers:                          # `toolproof eval`: MCP servers by name, each like mcp-assert's `server:`
  notes: {command: python, args: [examples/servers/notes_server.py]}
agent: {provider: openai, model: gpt-4o-mini, system: "...", max_steps: 30}   # for `toolproof eval`
target: {url: "http://127.0.0.1:8000/chat", auth: {bearer_env: AGENT_TOKEN}}    # or an agent over HTTP
expect:                           # checks on the whole conversation; each item is one check
  - called: lookup_order          # or {tool, args, index, strict, forbidden_args, forbidden_values, error}
  - not_called: [delete_account]
  - count: {tool: send_email, exactly: 3}     # or min / max
  - sequence: [lookup, verify, refund]        # or {exact | adjacent | unordered | subset | superset: [...]},
                                              #    {any_of: [[...], [...]]}
  - not_sequence: [read_secret, send_email]
  - node: {name: AI Agent, calls: [{called: search, index: 0}]}
  - tool_input: {tool: search, contains: item-123}          # or regex: / jsonpath: (+ equals:)
  - reply: {contains: refund, case_sensitive: false}         # not_contains, starts_with, ends_with, equals
  - regex: {pattern: "Order #\\d+", flavor: re2}             # re2 (default), js or python; match: false
  - jsonpath: {path: $.status, equals: ok}                   # or exists: true/false
  - field: {path: data.status, matches: confirmed}           # a matcher; not: true negates
  - schema: {schema: {type: object}, field: data}
  - http_status: 200
  - latency: {max_ms: 3000}
  - tokens: {max_total: 4000}
  - guardrail: {name: banned_words, triggered: true}
  - judge: {criteria: "...", threshold: 0.8, not: ["..."], grounding: true, node: ..., key: ...}
```
`called`, `not_called` and `count` read tool calls (those made inside workflow nodes too); `node` reads the
nodes. Every check also takes `id`, `depends_on` (an id or a list), `label`, `when` (it applies only if
`{tool_called, tool_called_pattern, any_tool_called, min_tool_calls}` hold in its scope; else it is skipped)
and `pass_threshold` (the share of trials it must pass). Expressions (`expr`, `date`) are checked when the
file loads: syntax, known functions, and names that are built-ins or `context` variables. An argument value
is a literal (exact match) or a matcher: `{contains: ...}`, `{regex: ...}`, `{date: EXPR or ISO date,
tolerance_minutes}`, `{one_of: [...]}`, `{any: true}`, `{schema: {...}}`, `{text: ...}`, `{expr: EXPR}`,
`{exact: ...}`, each with `optional: true` if the argument may be absent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from toolproof.load.agent_setup import read_agent, read_servers
from toolproof.load.errors import LoadError
from toolproof.load.reader import ISO_DATE, Reader, as_document, default_name, kind_of, source_ref
from toolproof.load.target import read_target
from toolproof.load.validation import suggest
from toolproof.load.yaml_source import Document, KeyPath
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
    GuardrailCheck,
    JsonPathCheck,
    JudgeCheck,
    JudgeContext,
    LatencyCheck,
    Matcher,
    OneOfMatcher,
    RegexCheck,
    RegexMatcher,
    SchemaCheck,
    SchemaMatcher,
    SequenceCheck,
    StatusCheck,
    TextCheck,
    TextMatcher,
    TokenLimitCheck,
    ToolInputCheck,
    ToolsCalled,
    ToolsNotCalled,
)

# --- toolproof's own format ------------------------------------------------------------------------------

CASE_KEYS = frozenset(
    {"name", "id", "prompt", "turns", "expect", "context", "judge_context", "system", "body", "skip", "tags"}
    | {"servers", "agent"}
    | {"target"}
)
TURN_KEYS = frozenset({"user", "expect"})
COMMON_KEYS = frozenset({"id", "depends_on", "label", "when", "pass_threshold"})
MATCHER_KEYS = frozenset({"exact", "contains", "regex", "date", "one_of", "any", "schema", "text", "expr"})
MATCHER_OPTIONS = frozenset({"optional", "tolerance_minutes", "flavor", "ignore_case"})
SEQUENCE_MODES = ("ordered", "adjacent", "exact", "unordered", "subset", "superset")


def detect(document: object) -> bool:
    """toolproof's own format: a top-level `expect` list, or `turns` whose items have `user`."""
    data = document.data if isinstance(document, Document) else document
    if not isinstance(data, Mapping):
        return False
    if isinstance(data.get("expect"), list):
        return True
    turns = data.get("turns")
    return isinstance(turns, list) and any(isinstance(item, Mapping) and "user" in item for item in turns)


def load(document: object, source: Path) -> list[AgentCase | LoadError]:
    """The case of one document, or its load errors."""
    doc = as_document(document, source)
    return _Own(Reader(doc)).case()


class _Own:
    def __init__(self, reader: Reader) -> None:
        self.r = reader
        self.placed: dict[int, KeyPath] = {}
        self.context: dict[str, Any] = {}  # the case's variables, which expressions may name

    def case(self) -> list[AgentCase | LoadError]:
        r = self.r
        data = r.document.data
        r.keys(data, (), CASE_KEYS)
        name = r.text(data["name"], ("name",)) if "name" in data else default_name(r.document)
        context = self.context = r.mapping(data.get("context", {}), ("context",)) or {}
        turns: list[AgentTurn] = []
        if "prompt" in data and "turns" in data:
            r.fail(("turns",), "give either prompt or turns, not both")
        if "prompt" in data:
            prompt = r.text(data["prompt"], ("prompt",))
            turns.append(AgentTurn(user=prompt or "", line=r.where(("prompt",))[0]))
        elif "turns" in data:
            turns.extend(self.turns(data["turns"]))
        checks = self.checks(data.get("expect", []), ("expect",))
        judge = self.judge_context(data.get("judge_context", {}))
        skip = r.boolean(data["skip"], ("skip",)) if "skip" in data else False
        tags = r.texts(data["tags"], ("tags",)) if "tags" in data else []
        metadata: dict[str, Any] = {"tags": tags} if tags else {}
        if "servers" in data:
            metadata["servers"], errors = read_servers(r.document, data["servers"], ("servers",))
            r.errors.extend(errors)
        if "agent" in data:
            metadata["agent"], errors = read_agent(r.document, data["agent"], ("agent",))
            r.errors.extend(errors)
        if "target" in data:
            metadata["target"] = read_target(r, data["target"], ("target",))
        if r.errors or name is None:
            return list(r.errors)
        case = AgentCase(
            name=name,
            id=r.text(data["id"], ("id",)) if "id" in data else None,
            source=source_ref(r.document),
            dialect="toolproof",
            turns=tuple(turns),
            assertions=tuple(checks),
            context=context,
            judge_context=judge,
            system=data.get("system"),
            custom_body=data.get("body"),
            skip=bool(skip),
            metadata=metadata,
        )
        return r.finish(case, self.placed)

    def turns(self, value: Any) -> list[AgentTurn]:
        if not isinstance(value, list):
            self.r.fail(("turns",), f"must be a list of turns, got {kind_of(value)}")
            return []
        found = []
        for index, item in enumerate(value):
            path: KeyPath = ("turns", index)
            data = self.r.mapping(item, path)
            if data is None:
                continue
            self.r.keys(data, path, TURN_KEYS)
            user = self.r.text(data.get("user", ""), (*path, "user")) or ""
            checks = self.checks(data.get("expect", []), (*path, "expect"))
            found.append(AgentTurn(user=user, assertions=tuple(checks), line=self.r.where(path)[0]))
        return found

    def judge_context(self, value: Any) -> JudgeContext:
        data = self.r.mapping(value, ("judge_context",)) or {}
        names = ("prompt", "tool_sequence", "tool_inputs", "tool_outputs", "tool_catalog")
        self.r.keys(data, ("judge_context",), names)
        flags = {key: self.r.boolean(data[key], ("judge_context", key)) for key in data}
        return JudgeContext(**{f"include_{key}": bool(flags.get(key)) for key in names})

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
        return r.build(path, factory, **values, **common)

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
        bounds = {key: data.pop(key) for key in ("exactly", "min", "max") if key in data}
        if not bounds:
            self.r.fail(path, "give exactly, min or max")
            return None
        fields = self.call_fields(data, path, "count")
        if fields is None:
            return None
        names = {"exactly": "count", "min": "min_count", "max": "max_count"}
        for key, bound in bounds.items():
            fields[1][names[key]] = self.r.integer(bound, (*path, key))
        return fields

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

    # --- matchers

    def matchers(self, value: Any, path: KeyPath) -> dict[str, Matcher]:
        data = self.r.mapping(value, path)
        found: dict[str, Matcher] = {}
        for name, item in (data or {}).items():
            matcher = self.matcher(item, (*path, name))
            if matcher is not None:
                found[name] = matcher
        return found

    def matcher(self, value: Any, path: KeyPath) -> Matcher | None:
        """A literal (exact) or a matcher mapping; see the module docstring."""
        if not isinstance(value, dict) or not (MATCHER_KEYS & set(value)):
            return ExactMatcher(value=value)
        r = self.r
        kinds = [key for key in value if key in MATCHER_KEYS]
        if len(kinds) != 1:
            r.fail(path, f"a matcher has one of {', '.join(sorted(MATCHER_KEYS))}, found {', '.join(kinds)}")
            return None
        r.keys(value, path, {*MATCHER_KEYS, *MATCHER_OPTIONS})
        kind = kinds[0]
        given = value[kind]
        here = (*path, kind)
        options: dict[str, Any] = {}
        if "optional" in value:
            options["optional"] = r.boolean(value["optional"], (*path, "optional"))
        try:
            return self._matcher(kind, given, here, value, options)
        except ValidationError as error:
            r.fail(path, f"invalid matcher: {error.errors()[0]['msg']}")
            return None

    def _matcher(
        self, kind: str, given: Any, here: KeyPath, value: dict[str, Any], options: dict[str, Any]
    ) -> Matcher | None:
        r = self.r
        if kind == "exact":
            return ExactMatcher(value=given, **options)
        if kind == "expr":
            text = r.expression(given, here, self.context)
            return None if text is None else ExactMatcher(expression=text, **options)
        if kind == "contains":
            return ContainsMatcher(value=given, **options)
        if kind == "text":
            return TextMatcher(value=given, **options)
        if kind == "any":
            return AnyMatcher(**options)
        if kind == "schema":
            schema = r.mapping(given, here)
            return None if schema is None else SchemaMatcher(json_schema=schema, **options)
        if kind == "regex":
            pattern = r.text(given, here, scalars=False)
            extra = {key: value[key] for key in ("flavor", "ignore_case") if key in value}
            return (
                None
                if pattern is None
                else RegexMatcher(pattern=pattern, **{"flavor": "re2", **extra}, **options)
            )
        if kind == "date":
            text = r.text(given, here, scalars=False)
            if text is None:
                return None
            tolerance = (
                r.number(value.get("tolerance_minutes", 0), (*here[:-1], "tolerance_minutes"), low=0) or 0
            )
            if ISO_DATE.fullmatch(text.strip()):
                key, checked = "value", r.date(text, here)
            else:
                key, checked = "expression", r.expression(text, here, self.context)
            if checked is None:
                return None
            return DateMatcher(**{key: checked}, tolerance_minutes=tolerance, **options)
        if not isinstance(given, list) or not given:
            r.fail(here, "must be a non-empty list of values or matchers")
            return None
        variants = [self.matcher(item, (*here, index)) for index, item in enumerate(given)]
        if any(variant is None for variant in variants):
            return None
        return OneOfMatcher(variants=tuple(v for v in variants if v is not None), **options)


_Fields = tuple[Any, dict[str, Any]] | None
_CHECKS: dict[str, Callable[[_Own, Any, KeyPath], _Fields]] = {
    "called": _Own.called,
    "not_called": _Own.not_called,
    "count": _Own.count,
    "tools_called": _Own.tools_called,
    "tools_not_called": _Own.tools_not_called,
    "sequence": _Own.sequence,
    "not_sequence": _Own.not_sequence,
    "node": _Own.node,
    "tool_input": _Own.tool_input,
    "reply": _Own.reply,
    "regex": _Own.regex,
    "jsonpath": _Own.jsonpath,
    "field": _Own.field,
    "schema": _Own.schema,
    "http_status": _Own.http_status,
    "latency": _Own.latency,
    "tokens": _Own.tokens,
    "guardrail": _Own.guardrail,
    "judge": _Own.judge,
}
