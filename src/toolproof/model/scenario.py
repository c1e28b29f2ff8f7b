"""Agent cases and the one vocabulary of checks every agent dialect (MCPLab, Mibo, PromptKit, toolproof's own
format) is loaded onto.

A case is a conversation (one or more user turns) and checks at two levels: the conversation (all turns) and
each turn. Checks are plain data; `toolproof.check.scenario` evaluates them over a `Transcript`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, ClassVar, Literal, Self

from pydantic import Field

from toolproof.model.base import Frozen
from toolproof.model.envelope import CaseEnvelope
from toolproof.model.server_config import ServerConfig
from toolproof.model.target import HttpTarget

RegexFlavor = Literal["re2", "js", "python"]
"""Which regex dialect a pattern is written in: Go RE2, JavaScript, or Python's `regex` module."""


# --- argument and value matchers -------------------------------------------------------------------------


class MatcherBase(Frozen):
    """`optional`: a missing or null actual value passes."""

    optional: bool = False


class ExactMatcher(MatcherBase):
    """Deep equality: lists as multisets, a leaf `"*"` matches any present value, no type coercion.

    The expected value is `expression` evaluated when set, else `value`.
    """

    matcher: Literal["exact"] = "exact"
    value: Any = None
    expression: str | None = None


class ContainsMatcher(MatcherBase):
    """Case-sensitive substring of the actual value's text (non-strings as compact JSON)."""

    matcher: Literal["contains"] = "contains"
    value: Any = None
    expression: str | None = None


class RegexMatcher(MatcherBase):
    """Unanchored search of `pattern` in the actual value's text."""

    matcher: Literal["regex"] = "regex"
    pattern: str
    flavor: RegexFlavor = "js"
    ignore_case: bool = False


class DateMatcher(MatcherBase):
    """The actual value is a date or instant within `tolerance_minutes` of the expected one.

    A date-only expectation stands for its whole calendar day in the evaluation time zone.
    """

    matcher: Literal["date"] = "date"
    expression: str | None = None
    value: str | None = None
    tolerance_minutes: float = 0


class AnyMatcher(MatcherBase):
    """The argument is present (a present null counts)."""

    matcher: Literal["any"] = "any"


class SchemaMatcher(MatcherBase):
    """The actual value is valid against a JSON Schema."""

    matcher: Literal["schema"] = "schema"
    json_schema: dict[str, Any]


class TextMatcher(MatcherBase):
    """The string forms are equal, Go `%v` style (`10` equals `"10"`, `true` equals `"true"`)."""

    matcher: Literal["text"] = "text"
    value: Any = None


class OneOfMatcher(MatcherBase):
    """Any of the variants matches."""

    matcher: Literal["one_of"] = "one_of"
    variants: tuple[Matcher, ...]


Matcher = Annotated[
    ExactMatcher
    | ContainsMatcher
    | RegexMatcher
    | DateMatcher
    | AnyMatcher
    | SchemaMatcher
    | TextMatcher
    | OneOfMatcher,
    Field(discriminator="matcher"),
]

# --- checks ---------------------------------------------------------------------------------------------


class Precondition(Frozen):
    """When a check applies at all (PromptKit `when`), read from the tool calls of the check's scope; a check
    whose precondition does not hold is skipped, not failed.

    `tool_called`: that tool was called; `tool_called_pattern`: some tool name contains a match of this Go RE2
    pattern; `any_tool_called`: some tool was called; `min_tool_calls`: at least that many calls. All given
    conditions must hold.
    """

    tool_called: str | None = None
    tool_called_pattern: str | None = None
    any_tool_called: bool = False
    min_tool_calls: int = Field(default=0, ge=0)


class Check(Frozen):
    """What every check has: an optional id others can depend on, its dependencies, a label for reports, and
    where it is written (line 0 = not known; the case's line is used).

    `checker` (of the class): the `toolproof.check` module that registers the class's checker, imported the
    first time such a check is evaluated. `when`: the check applies only when this holds (else it is
    skipped). `pass_threshold`: over repeated trials, the share of the trials this check must pass (None: the
    run-wide threshold).
    """

    id: str | None = None
    depends_on: tuple[str, ...] = ()
    label: str | None = None
    when: Precondition | None = None
    pass_threshold: float | None = Field(default=None, ge=0, le=1)
    line: int = 0
    column: int = 0

    checker: ClassVar[str] = ""

    def renamed_tools(self, rename: Callable[[str], str]) -> Self:
        """The check with every tool name it lists passed through `rename` (itself when it lists none)."""
        return self


class ToolsCalled(Check):
    """Every listed tool was called at least once."""

    kind: Literal["tools_called"] = "tools_called"
    checker: ClassVar[str] = "calls"
    tools: tuple[str, ...]

    def renamed_tools(self, rename: Callable[[str], str]) -> Self:
        return self.model_copy(update={"tools": tuple(map(rename, self.tools))})


class ToolsNotCalled(Check):
    """None of the listed tools was called."""

    kind: Literal["tools_not_called"] = "tools_not_called"
    checker: ClassVar[str] = "calls"
    tools: tuple[str, ...]

    def renamed_tools(self, rename: Callable[[str], str]) -> Self:
        return self.model_copy(update={"tools": tuple(map(rename, self.tools))})


class CallCheck(Check):
    """Calls of one tool or node, optionally with matching arguments.

    `condition`: `called` (at least one matching call), `not_called` (none), `count` (the number of matching
    calls is `count`, or within `min_count`..`max_count`). `level`: `tool` calls, workflow `node`s, or `auto`
    (Mibo's top-level `node_call`: the nodes when the run has any, else its tool calls). `index`: the matching
    call must be at this 0-based position among all calls of its level and scope. `calls`: checks on the tool
    calls made inside the matched node(s).
    """

    kind: Literal["call"] = "call"
    checker: ClassVar[str] = "calls"
    name: str
    level: Literal["tool", "node", "auto"] = "tool"
    condition: Literal["called", "not_called", "count"] = "called"
    arguments: dict[str, Matcher] = Field(default_factory=dict)
    strict: bool = False
    forbidden_arguments: tuple[str, ...] = ()
    forbidden_values: dict[str, Matcher] = Field(default_factory=dict)
    is_error: bool | None = None
    index: int | None = None
    count: int | None = None
    min_count: int | None = None
    max_count: int | None = None
    calls: tuple[CallCheck, ...] = ()

    def renamed_tools(self, rename: Callable[[str], str]) -> Self:
        return self.model_copy(update={"name": rename(self.name)})


class ToolCallCount(Check):
    """How many times `tool` (None: any tool) was called in the scope: exactly `count`, at least `min_count`,
    at most `max_count` (every bound given must hold; calls that returned an error count too)."""

    kind: Literal["tool_call_count"] = "tool_call_count"
    checker: ClassVar[str] = "counts"
    tool: str | None = None
    count: int | None = Field(default=None, ge=0)
    min_count: int | None = Field(default=None, ge=0)
    max_count: int | None = Field(default=None, ge=0)

    def renamed_tools(self, rename: Callable[[str], str]) -> Self:
        return self if self.tool is None else self.model_copy(update={"tool": rename(self.tool)})


SequenceMode = Literal["ordered", "adjacent", "exact", "unordered", "subset", "superset"]


class SequenceCheck(Check):
    """The run's tool-name sequence relates to one of `sequences` (any of them, when there are several).

    `ordered`: subsequence (others may stand between, repeats must repeat); `adjacent`: contiguous
    subsequence; `exact`: the whole sequence; `unordered`: the same names and counts in any order; `subset`:
    no call beyond the reference (counts included); `superset`: every reference call occurs (counts
    included). `forbidden`: the check fails when the relation holds for any of the sequences.
    """

    kind: Literal["sequence"] = "sequence"
    checker: ClassVar[str] = "sequence"
    mode: SequenceMode = "ordered"
    sequences: tuple[tuple[str, ...], ...]
    forbidden: bool = False

    def renamed_tools(self, rename: Callable[[str], str]) -> Self:
        renamed = tuple(tuple(map(rename, each)) for each in self.sequences)
        return self.model_copy(update={"sequences": renamed})


class ToolInputCheck(Check):
    """Some call of `tool` has arguments that satisfy one test (MCPLab `tool_input_assertions`).

    `contains`: case-insensitive substring of the compact-JSON arguments; `regex`: JavaScript pattern,
    case-sensitive, on the same text; `jsonpath`: the RFC 9535 `path` matches in the argument object (equal to
    `equals` when `has_equals`).
    """

    kind: Literal["tool_input"] = "tool_input"
    checker: ClassVar[str] = "calls"
    tool: str
    op: Literal["contains", "regex", "jsonpath"]
    value: str = ""
    has_equals: bool = False
    equals: Any = None

    def renamed_tools(self, rename: Callable[[str], str]) -> Self:
        return self.model_copy(update={"tool": rename(self.tool)})


TextOp = Literal["contains", "not_contains", "starts_with", "ends_with", "equals"]


class TextCheck(Check):
    """A literal test of the reply: with several values, `contains` needs all, `not_contains` none, and the
    others any."""

    kind: Literal["text"] = "text"
    checker: ClassVar[str] = "response"
    op: TextOp
    values: tuple[str, ...]
    ignore_case: bool = True
    trim: bool = False


class RegexCheck(Check):
    """The reply matches (or, with `should_match: false`, does not match) `pattern` somewhere.

    `strip_inline_flags`: a leading `(?imsx)` group is dropped first, as MCPLab does.
    """

    kind: Literal["regex"] = "regex"
    checker: ClassVar[str] = "response"
    pattern: str
    flavor: RegexFlavor = "re2"
    ignore_case: bool = False
    should_match: bool = True
    strip_inline_flags: bool = False


class JsonPathCheck(Check):
    """An RFC 9535 JSONPath over the response body or the reply parsed as JSON."""

    kind: Literal["jsonpath"] = "jsonpath"
    checker: ClassVar[str] = "response"
    path: str
    mode: Literal["exists", "not_exists", "equals"] = "exists"
    equals: Any = None


class FieldCheck(Check):
    """The value at a dot path (`data.items.0.id`) of the response satisfies a matcher (or, negated, not)."""

    kind: Literal["field"] = "field"
    checker: ClassVar[str] = "response"
    field: str
    expected: Matcher
    negate: bool = False


class SchemaCheck(Check):
    """The response (or the value at dot path `field`) is valid against a JSON Schema."""

    kind: Literal["json_schema"] = "json_schema"
    checker: ClassVar[str] = "response"
    json_schema: dict[str, Any]
    field: str | None = None


class StatusCheck(Check):
    """Every response in scope had this HTTP status."""

    kind: Literal["http_status"] = "http_status"
    checker: ClassVar[str] = "response"
    expected: int


class LatencyCheck(Check):
    """Every response in scope took at most `max_ms`."""

    kind: Literal["latency"] = "latency"
    checker: ClassVar[str] = "response"
    max_ms: float


class TokenLimitCheck(Check):
    """Token usage summed over the scope stays within each given limit."""

    kind: Literal["token_limit"] = "token_limit"
    checker: ClassVar[str] = "tokens"
    max_total: int | None = None
    max_input: int | None = None
    max_output: int | None = None


class GuardrailCheck(Check):
    """The named guardrail triggered (or not); with no name and `expected` false, none triggered at all. Not
    evaluated on a run that recorded no guardrail information."""

    kind: Literal["guardrail"] = "guardrail"
    checker: ClassVar[str] = "response"
    name: str | None = None
    expected: bool = True


class JudgeCheck(Check):
    """A judgement by an LLM judge, batched with the run's other judge checks into one request.

    `threshold` None: the judge's pass/fail verdict decides; else its score in [0, 1] must reach it. Each
    `negative_constraints` entry is judged too and fails the check when violated. `grounding`: the judge also
    gets the tool outputs (hallucination checks). `target_node` / `output_key`: judge that node's output
    (the last executed node whose name contains `target_node`, then the dot path `output_key`), not the reply.
    """

    kind: Literal["judge"] = "judge"
    checker: ClassVar[str] = "judge"
    criteria: str
    threshold: float | None = None
    negative_constraints: tuple[str, ...] = ()
    grounding: bool = False
    target_node: str | None = None
    output_key: str | None = None


Assertion = Annotated[
    ToolsCalled
    | ToolsNotCalled
    | CallCheck
    | ToolCallCount
    | SequenceCheck
    | ToolInputCheck
    | TextCheck
    | RegexCheck
    | JsonPathCheck
    | FieldCheck
    | SchemaCheck
    | StatusCheck
    | LatencyCheck
    | TokenLimitCheck
    | GuardrailCheck
    | JudgeCheck,
    Field(discriminator="kind"),
]

# --- cases ----------------------------------------------------------------------------------------------


class JudgeContext(Frozen):
    """What the judge request carries besides the answer (MCPLab `agent_context`; the tool outputs and the
    tool catalog offered to the agent are toolproof's additions)."""

    include_prompt: bool = False
    include_tool_sequence: bool = False
    include_tool_inputs: bool = False
    include_tool_outputs: bool = False
    include_tool_catalog: bool = False


class Extraction(Frozen):
    """A value read out of the final reply for the report, never a verdict (MCPLab `extract`): the first match
    of the JavaScript pattern `regex` (no flags); its group `value`, else group 1, else the whole match;
    `"true"`/`"false"` become booleans and decimal numbers numbers; no match gives None."""

    name: str
    regex: str


class AgentTurn(Frozen):
    """One user message and the checks on what followed it."""

    user: str = ""
    assertions: tuple[Assertion, ...] = ()
    line: int = 0


class AgentCase(CaseEnvelope):
    """One agent test: a conversation, checks per turn and on the whole conversation.

    `context` holds the case's variables (for expressions and message templates); `custom_body` the exact
    request body for HTTP targets; `strip_server_prefix` rewrites a listed tool name `server:tool` to `tool`
    when only the short name was called (MCPLab's alias rule); `extract` reads values out of the final reply
    for the report.

    Where the case runs: `target`, an agent reached over HTTP (no model, no server of toolproof's); else
    `servers`, the MCP servers of the case's own agent (None: the project's), and `agent`, the case's own
    agent settings (only the keys given). `metadata` keeps dialect-specific settings that do not affect
    checking (MCPLab's `servers` labels, `mcp_servers`, `server_pool` and `agent_configs` are resolved
    against the project when the run is planned).
    """

    id: str | None = None
    dialect: str
    turns: tuple[AgentTurn, ...] = ()
    assertions: tuple[Assertion, ...] = ()
    context: dict[str, Any] = Field(default_factory=dict)
    judge_context: JudgeContext = Field(default_factory=JudgeContext)
    system: str | None = None
    custom_body: Any = None
    strip_server_prefix: bool = False
    extract: tuple[Extraction, ...] = ()
    target: HttpTarget | None = None
    servers: dict[str, ServerConfig] | None = None
    agent: dict[str, Any] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    def all_assertions(self) -> list[tuple[int | None, Assertion]]:
        """Every check with its turn index (None = conversation level), turns first."""
        found: list[tuple[int | None, Assertion]] = [
            (index, assertion) for index, turn in enumerate(self.turns) for assertion in turn.assertions
        ]
        found.extend((None, assertion) for assertion in self.assertions)
        return found

    def dependency_problems(self) -> list[tuple[Check, str]]:
        """Duplicate ids, dependencies on unknown ids, and dependency cycles, each with the check to blame."""
        checks = [assertion for _, assertion in self.all_assertions()]
        problems: list[tuple[Check, str]] = []
        by_id: dict[str, Check] = {}
        for check in checks:
            if check.id is None:
                continue
            if check.id in by_id:
                problems.append((check, f"duplicate id {check.id!r}"))
            by_id.setdefault(check.id, check)
        for check in checks:
            for wanted in check.depends_on:
                if wanted not in by_id:
                    known = ", ".join(sorted(by_id)) or "none"
                    problems.append((check, f"depends on unknown id {wanted!r} (known ids: {known})"))
        problems.extend(_cycles(by_id))
        return problems


def _cycles(by_id: dict[str, Check]) -> list[tuple[Check, str]]:
    """One problem per dependency cycle among the identified checks."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    problems: list[tuple[Check, str]] = []

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for wanted in by_id[name].depends_on:
            if wanted not in by_id:
                continue
            if state.get(wanted) == 1:
                loop = [*path[path.index(wanted) :], wanted]
                problems.append((by_id[wanted], "dependency cycle: " + " -> ".join(loop)))
            elif wanted not in state:
                visit(wanted, [*path, wanted])
        state[name] = 2

    for name in by_id:
        if name not in state:
            visit(name, [name])
    return problems
