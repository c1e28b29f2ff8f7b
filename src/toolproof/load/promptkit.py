"""PromptKit Scenario files: `apiVersion: promptkit.altairalabs.ai/v1alpha1`, `kind: Scenario`.

Each user turn's `assertions` check that turn; `spec.conversation_assertions` check the whole conversation.
Assertions are `{type, params, message}`: `content_includes` (case-insensitive substrings), `content_matches`
(Go RE2), `tools_called`, `tools_not_called`, `tool_calls_with_args` (`expected_args` compared by Go `%v`
text, `null` = presence only; conversation level also `required_args`; `args_match` regexes) and
`guardrail_triggered` (`guardrail` or the newer `validator`; `expected` or the older `assertions`, default
true). The LLM-judge checks `llm_judge` (the turn's reply) and `llm_judge_session` / `llm_judge_conversation`
(the conversation) take `criteria` (required) and `rubric`; the judge's verdict decides, or, wrapped as
`{type: assertion, params: {eval_type: llm_judge, eval_params: {...}, min_score: X}}`, its score must reach X.
Their `model`, `system_prompt` and `extra` are PromptKit's judge settings and are not used: the judge is the
one the run configures.
`message` becomes the check's label. `when: {tool_called, tool_called_pattern, any_tool_called,
min_tool_calls}` makes an assertion conditional on the tool calls of its scope (the turn, or the whole
conversation): when a condition does not hold it is skipped, not failed. `pass_threshold` is the share of
trials the assertion must pass (default: every trial).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolproof.load import shapes
from toolproof.load.errors import LoadError
from toolproof.load.reader import Reader, source_ref
from toolproof.load.yaml_source import KeyPath, as_document
from toolproof.model.scenario import (
    AgentCase,
    AgentTurn,
    AnyMatcher,
    Assertion,
    CallCheck,
    GuardrailCheck,
    JudgeCheck,
    Matcher,
    RegexCheck,
    RegexMatcher,
    TextCheck,
    TextMatcher,
    ToolCallCount,
    ToolsCalled,
    ToolsNotCalled,
)

detect = shapes.promptkit
"""The shape test of this dialect (`load/shapes.py`)."""

TOP_KEYS = frozenset({"apiVersion", "kind", "metadata", "spec"})
SPEC_KEYS = frozenset(
    {
        "id",
        "task_type",
        "mode",
        "description",
        "context_metadata",
        "turns",
        "context",
        "constraints",
        "tool_policy",
        "providers",
        "provider_group",
        "required_capabilities",
        "streaming",
        "context_policy",
        "conversation_assertions",
        "duplex",
        "variables",
        "trials",
        "seed_memories",
    }
)
TURN_KEYS = frozenset(
    {"role", "content", "parts", "assertions", "streaming", "consent_overrides", "tts", "perturbations"}
)

ASSERTION_KEYS = ("type", "params", "message", "when", "pass_threshold")
PARAMS: dict[str, tuple[str, ...]] = {
    "content_includes": ("patterns",),
    "content_matches": ("pattern",),
    "tools_called": ("tools",),
    "tools_not_called": ("tools",),
    "tool_call_count": ("tool", "min", "max"),
    "tool_calls_with_args": ("tool_name", "expected_args", "required_args", "args_match"),
    "guardrail_triggered": ("guardrail", "validator", "expected", "assertions"),
    "llm_judge": ("criteria", "rubric", "model", "system_prompt", "extra"),
    "llm_judge_session": ("criteria", "rubric", "model", "system_prompt", "extra"),
    "llm_judge_conversation": ("criteria", "rubric", "model", "system_prompt", "extra"),
    "assertion": ("eval_type", "eval_params", "min_score"),
}
JUDGE_TYPES = ("llm_judge", "llm_judge_session", "llm_judge_conversation")


def load(document: object, source: Path) -> list[AgentCase | LoadError]:
    """The scenario of one document, or its load errors."""
    return _Scenario(Reader(as_document(document, source))).load()


class _Scenario:
    def __init__(self, reader: Reader) -> None:
        self.r = reader
        self.placed: dict[int, KeyPath] = {}

    def load(self) -> list[AgentCase | LoadError]:
        r = self.r
        data = r.document.data
        r.keys(data, (), TOP_KEYS, required=("spec",))
        metadata = r.mapping(data.get("metadata", {}), ("metadata",)) or {}
        spec = r.mapping(data.get("spec"), ("spec",))
        if spec is None:
            return list(r.errors)
        r.keys(spec, ("spec",), SPEC_KEYS)
        turns = self.turns(spec.get("turns", []))
        conversation = self.assertions(
            spec.get("conversation_assertions") or [], ("spec", "conversation_assertions"), conversation=True
        )
        name = metadata.get("name") or spec.get("id") or r.document.file.stem
        if r.errors:
            return list(r.errors)
        case = AgentCase(
            name=str(name),
            id=str(spec["id"]) if "id" in spec else str(metadata.get("name") or "") or None,
            source=source_ref(r.document),
            dialect="promptkit",
            turns=tuple(turns),
            assertions=tuple(conversation),
            context=dict(spec.get("context") or {}),
            metadata={
                key: spec[key]
                for key in ("task_type", "description", "tool_policy", "providers")
                if key in spec
            },
        )
        return r.finish(case, self.placed)

    def turns(self, value: Any) -> list[AgentTurn]:
        if not isinstance(value, list):
            self.r.fail(("spec", "turns"), "must be a list of turns")
            return []
        found = []
        for index, item in enumerate(value):
            path: KeyPath = ("spec", "turns", index)
            data = self.r.mapping(item, path)
            if data is None:
                continue
            self.r.keys(data, path, TURN_KEYS)
            role = data.get("role", "user")
            if role != "user":
                if data.get("assertions"):
                    self.r.fail(
                        (*path, "role"),
                        f"assertions on a {role!r} turn cannot be checked",
                        "only user turns are checked; self-play turns are not supported",
                    )
                continue
            content = self.r.text(data.get("content", ""), (*path, "content")) or ""
            checks = self.assertions(data.get("assertions") or [], (*path, "assertions"), conversation=False)
            found.append(AgentTurn(user=content, assertions=tuple(checks), line=self.r.where(path)[0]))
        return found

    def assertions(self, value: Any, path: KeyPath, *, conversation: bool) -> list[Assertion]:
        if not isinstance(value, list):
            self.r.fail(path, "must be a list of assertions")
            return []
        found = []
        for index, item in enumerate(value):
            check = self.assertion(item, (*path, index), conversation)
            if check is not None:
                self.placed[id(check)] = (*path, index)
                found.append(check)
        return found

    def assertion(self, item: Any, path: KeyPath, conversation: bool) -> Assertion | None:
        r = self.r
        data = r.mapping(item, path)
        if data is None:
            return None
        if not r.keys(data, path, ASSERTION_KEYS, required=("type",)):
            return None
        kind = data["type"]
        if not isinstance(kind, str) or kind not in PARAMS:
            r.fail(
                (*path, "type"),
                f"{kind!r} is not a supported assertion type",
                f"supported: {', '.join(PARAMS)}",
            )
            return None
        params = r.mapping(data.get("params", {}), (*path, "params"))
        if params is None or not r.keys(params, (*path, "params"), PARAMS[kind]):
            return None
        common: dict[str, Any] = {}
        if "message" in data:
            common["label"] = r.text(data["message"], (*path, "message"))
        if "when" in data:
            common["when"] = r.precondition(data["when"], (*path, "when"))
        if "pass_threshold" in data:
            common["pass_threshold"] = r.number(data["pass_threshold"], (*path, "pass_threshold"), 0, 1)
        before = len(r.errors)
        method = getattr(self, "wrapped" if kind == "assertion" else kind)
        made = method(params, (*path, "params"), conversation)
        if made is None or len(r.errors) > before:
            return None
        factory, fields = made
        return r.build(path, factory, **common, **fields)

    def need(self, params: Mapping[str, Any], path: KeyPath, key: str) -> Any:
        if key not in params:
            self.r.fail(path, f"required parameter {key!r} missing")
        return params.get(key)

    def content_includes(
        self, params: Mapping[str, Any], path: KeyPath, _: bool
    ) -> tuple[Any, dict[str, Any]] | None:
        given = self.need(params, path, "patterns")
        patterns = None if given is None else self.r.texts(given, (*path, "patterns"))
        return (
            (TextCheck, {"op": "contains", "values": tuple(patterns), "ignore_case": True})
            if patterns
            else None
        )

    def content_matches(
        self, params: Mapping[str, Any], path: KeyPath, _: bool
    ) -> tuple[Any, dict[str, Any]] | None:
        given = self.need(params, path, "pattern")
        pattern = None if given is None else self.r.text(given, (*path, "pattern"), scalars=False)
        return None if pattern is None else (RegexCheck, {"pattern": pattern, "flavor": "re2"})

    def tools_called(
        self, params: Mapping[str, Any], path: KeyPath, _: bool
    ) -> tuple[Any, dict[str, Any]] | None:
        given = self.need(params, path, "tools")
        tools = None if given is None else self.r.texts(given, (*path, "tools"))
        return (ToolsCalled, {"tools": tuple(tools)}) if tools else None

    def tools_not_called(
        self, params: Mapping[str, Any], path: KeyPath, _: bool
    ) -> tuple[Any, dict[str, Any]] | None:
        given = self.need(params, path, "tools")
        tools = None if given is None else self.r.texts(given, (*path, "tools"))
        return (ToolsNotCalled, {"tools": tuple(tools)}) if tools else None

    def tool_call_count(
        self, params: Mapping[str, Any], path: KeyPath, _: bool
    ) -> tuple[Any, dict[str, Any]] | None:
        """Calls of `tool` (any tool when it is not given) within `min` and `max` (neither: any number)."""
        fields: dict[str, Any] = {
            field: self.r.integer(params[key], (*path, key))
            for key, field in (("min", "min_count"), ("max", "max_count"))
            if key in params
        }
        if "tool" in params:
            fields["tool"] = self.r.text(params["tool"], (*path, "tool"))
        return ToolCallCount, fields

    def tool_calls_with_args(
        self, params: Mapping[str, Any], path: KeyPath, conversation: bool
    ) -> tuple[Any, dict[str, Any]] | None:
        r = self.r
        given = self.need(params, path, "tool_name")
        tool = None if given is None else r.text(given, (*path, "tool_name"))
        if "required_args" in params and not conversation:
            r.fail(
                (*path, "required_args"),
                "required_args is for conversation_assertions",
                "use expected_args in a turn's assertions",
            )
        arguments: dict[str, Matcher] = {}
        for key in ("expected_args", "required_args"):
            values = r.mapping(params.get(key, {}), (*path, key)) or {}
            for name, value in values.items():
                arguments[name] = AnyMatcher() if value is None else TextMatcher(value=value)
        patterns = r.mapping(params.get("args_match", {}), (*path, "args_match")) or {}
        for name, pattern in patterns.items():
            if name in arguments:
                r.fail((*path, "args_match", name), f"argument {name!r} is also in expected_args")
                continue
            text = r.text(pattern, (*path, "args_match", name), scalars=False)
            if text is not None:
                arguments[name] = RegexMatcher(pattern=text, flavor="re2")
        return None if tool is None else (CallCheck, {"name": tool, "arguments": arguments})

    def guardrail_triggered(
        self, params: Mapping[str, Any], path: KeyPath, _: bool
    ) -> tuple[Any, dict[str, Any]] | None:
        r = self.r
        names = [key for key in ("guardrail", "validator") if key in params]
        flags = [key for key in ("expected", "assertions") if key in params]
        if len(names) > 1 or len(flags) > 1:
            r.fail(path, "give guardrail or validator, and expected or assertions, once each")
            return None
        fields: dict[str, Any] = {}
        if names:
            fields["name"] = r.text(params[names[0]], (*path, names[0]))
        if flags:
            fields["expected"] = r.boolean(params[flags[0]], (*path, flags[0]))
        return GuardrailCheck, fields

    def llm_judge(
        self, params: Mapping[str, Any], path: KeyPath, _: bool
    ) -> tuple[Any, dict[str, Any]] | None:
        r = self.r
        given = self.need(params, path, "criteria")
        criteria = None if given is None else r.text(given, (*path, "criteria"))
        rubric = r.text(params["rubric"], (*path, "rubric")) if "rubric" in params else None
        if not criteria:
            return None
        return JudgeCheck, {"criteria": f"{criteria}\nRubric: {rubric}" if rubric else criteria}

    llm_judge_session = llm_judge
    llm_judge_conversation = llm_judge

    def wrapped(
        self, params: Mapping[str, Any], path: KeyPath, conversation: bool
    ) -> tuple[Any, dict[str, Any]] | None:
        """The `assertion` wrapper, around an LLM judge: its score must reach `min_score` (default 1)."""
        r = self.r
        kind = self.need(params, path, "eval_type")
        if kind is None:
            return None
        if kind not in JUDGE_TYPES:
            supported = f"supported: {', '.join(JUDGE_TYPES)}"
            r.fail((*path, "eval_type"), f"{kind!r} is not a supported eval_type", supported)
            return None
        inner = r.mapping(params.get("eval_params", {}), (*path, "eval_params"))
        if inner is None or not r.keys(inner, (*path, "eval_params"), PARAMS[kind]):
            return None
        made = self.llm_judge(inner, (*path, "eval_params"), conversation)
        if made is None:
            return None
        given = params.get("min_score", 1.0)
        threshold = r.number(given, (*path, "min_score"), 0, 1)
        return JudgeCheck, {**made[1], "threshold": threshold}
