"""What a server test is: the case, the server it talks to, its setup and the one request it checks.

Field names follow mcp-assert's YAML so that its suites load as they are; every model forbids unknown
keys so a misspelt key is a load error rather than a silently ignored expectation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import ConfigDict, Field, model_validator

from toolproof.model.base import Frozen
from toolproof.model.envelope import CaseEnvelope
from toolproof.model.envelope import SourceRef as SourceRef  # its home before the envelope
from toolproof.model.server_config import ServerConfig, Text, TextList

if TYPE_CHECKING:
    from toolproof.model.scenario import Assertion

    Checks = tuple[Assertion, ...]
else:  # validated by the loader: a server suite without a trajectory never builds the agent checks' models
    Checks = tuple[Any, ...]


class SetupStep(Frozen):
    """A tool call made before the checked request, optionally capturing values from its JSON text."""

    tool: Text
    args: dict[str, Any] = Field(default_factory=dict)
    capture: dict[str, Text] = Field(default_factory=dict)


TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]


class TaskExpect(Frozen):
    """toolproof's own: what a tool call answered with a task (2026-07-28 tasks extension) must show. A task
    that ended other than `status` fails the case even without this block (completed, or cancelled when the
    case cancels it)."""

    status: Literal["completed", "failed", "cancelled"] | None = None  # the terminal status
    states: list[TaskStatus] | None = None  # every status seen, in order, repeats in a row counted once
    min_ms: float | None = Field(default=None, ge=0)  # from the call to the terminal status
    max_ms: float | None = Field(default=None, ge=0)
    message: Text | None = None  # a substring of the last statusMessage
    error_code: int | None = None  # the JSON-RPC error code of a failed task


class Expect(Frozen):
    """Expectations on a result's text and side effects, checked in mcp-assert's documented order."""

    not_error: bool | None = None
    is_error: bool | None = None
    not_empty: bool | None = None
    equals: Text | None = None
    contains: TextList | None = None
    contains_any: TextList | None = None
    not_contains: TextList | None = None
    matches_regex: TextList | None = None
    json_path: dict[str, Any] | None = None
    min_results: int | None = None
    max_results: int | None = None
    net_delta: int | None = None
    file_contains: dict[str, Text] | None = None
    file_not_contains: dict[str, Text] | None = None
    file_not_exists: TextList | None = None
    file_unchanged: TextList | None = None
    in_order: TextList | None = None
    min_progress: int | None = None
    structured: dict[str, Any] | None = None  # toolproof's own: RFC 9535 path -> value in structuredContent
    structured_schema: dict[str, Any] | None = None  # toolproof's own: a JSON Schema for structuredContent
    task: TaskExpect | None = None  # toolproof's own: the task the call was answered with
    ttl_ms: int | None = None  # toolproof's own: the result's ttlMs cache hint (2026-07-28)
    cache_scope: Literal["public", "private"] | None = None  # toolproof's own: the result's cacheScope
    error_code: int | None = None  # toolproof's own: the request is answered with this JSON-RPC error
    error_data: dict[str, Any] | None = None  # toolproof's own: RFC 9535 path -> value in the error's data

    def expects_error(self) -> bool:
        """Whether a JSON-RPC error answer is what the case checks, rather than a failure of it."""
        return self.error_code is not None or self.error_data is not None

    def file_paths_after(self) -> list[str]:
        """Paths (unsubstituted) whose content the checks need after the request."""
        paths = [*(self.file_contains or {}), *(self.file_not_contains or {})]
        return [*paths, *(self.file_not_exists or []), *(self.file_unchanged or [])]


class TaskOptions(Frozen):
    """toolproof's own: how a tool call answered with a task is followed: `tasks/cancel` after that many
    polls (0: at once) or that long after the task was created, whichever comes first; at most `max_polls`
    polls of `tasks/get` (the case fails when the task is still running then)."""

    cancel_after_polls: int | None = Field(default=None, ge=0)
    cancel_after_ms: float | None = Field(default=None, ge=0)
    max_polls: int = Field(default=10_000, ge=1)


class AssertBlock(Frozen):
    """`assert:` - one `tools/call`."""

    kind: Literal["assert"] = Field(default="assert", exclude=True)
    tool: Text
    args: dict[str, Any] = Field(default_factory=dict)
    expect: Expect = Field(default_factory=Expect)
    capture_progress: bool = False
    task: TaskOptions | None = None  # toolproof's own


class ListParams(Frozen):
    cursor: Text | None = None


class ResourcesBlock(Frozen):
    """`assert_resources:` - list or read, optionally with a subscription."""

    kind: Literal["assert_resources"] = Field(default="assert_resources", exclude=True)
    list_: ListParams | None = Field(default=None, alias="list")
    read: Text | None = None
    subscribe: Text | None = None
    unsubscribe: Text | None = None
    expect: Expect = Field(default_factory=Expect)
    expect_notification: bool | None = None


class PromptGet(Frozen):
    name: Text
    arguments: dict[str, Text] = Field(default_factory=dict)


class PromptsBlock(Frozen):
    """`assert_prompts:` - list or get."""

    kind: Literal["assert_prompts"] = Field(default="assert_prompts", exclude=True)
    list_: ListParams | None = Field(default=None, alias="list")
    get: PromptGet | None = None
    expect: Expect = Field(default_factory=Expect)


class CompletionRef(Frozen):
    type: Literal["ref/prompt", "ref/resource"]
    name: Text | None = None
    uri: Text | None = None


class CompletionArgument(Frozen):
    name: Text
    value: Text = ""


class CompletionBlock(Frozen):
    """`assert_completion:` - one `completion/complete`."""

    kind: Literal["assert_completion"] = Field(default="assert_completion", exclude=True)
    ref: CompletionRef
    argument: CompletionArgument
    context: dict[str, Text] | None = None
    expect: Expect = Field(default_factory=Expect)


class SamplingBlock(Frozen):
    """`assert_sampling:` - a tool call whose sampling requests get a canned answer."""

    kind: Literal["assert_sampling"] = Field(default="assert_sampling", exclude=True)
    tool: Text
    args: dict[str, Any] = Field(default_factory=dict)
    mock_text: Text = ""
    mock_model: Text = "mock"
    stop_reason: Text = "end_turn"
    expect: Expect = Field(default_factory=Expect)


class ToolExpect(Frozen):
    """What one tool's tools/list declaration must hold; an empty one only requires the tool to be listed."""

    input: TextList | None = None  # property names of inputSchema
    required: TextList | None = None  # names in inputSchema.required
    annotations: dict[str, Any] | None = None  # hint -> value; an undeclared hint has the spec's default
    description: Text | None = None  # RE2 pattern searched in the description
    output_schema: bool | None = None  # whether it declares an outputSchema
    declared: dict[str, Any] | None = None  # RFC 9535 path -> value in the declaration as listed


class ToolsExpect(Frozen):
    """Expectations on the server's tool listing (every page)."""

    tools: dict[str, ToolExpect] | None = None  # each must be listed, with what its ToolExpect asks
    absent: TextList | None = None  # names that must not be listed
    min_tools: int | None = None
    max_tools: int | None = None


class ToolsBlock(Frozen):
    """`assert_tools:` - tools/list (toolproof's own block), checked against the declarations expected."""

    kind: Literal["assert_tools"] = Field(default="assert_tools", exclude=True)
    expect: ToolsExpect = Field(default_factory=ToolsExpect)


class LoggingExpect(Frozen):
    min_messages: int | None = None
    contains_level: TextList | None = None
    contains_data: TextList | None = None


class LoggingBlock(Frozen):
    """`assert_logging:` - set a level, call a tool, check the log messages."""

    kind: Literal["assert_logging"] = Field(default="assert_logging", exclude=True)
    set_level: Text
    tool: Text | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    expect: LoggingExpect = Field(default_factory=LoggingExpect)


class NotificationExpect(Frozen):
    min_count: int | None = None
    max_count: int | None = None
    methods: TextList | None = None
    not_methods: TextList | None = None
    contains_data: TextList | None = None
    not_contains_data: TextList | None = None


class NotificationsBlock(Frozen):
    """`assert_notifications:` - every notification during one tool call."""

    kind: Literal["assert_notifications"] = Field(default="assert_notifications", exclude=True)
    tool: Text
    args: dict[str, Any] = Field(default_factory=dict)
    expect: NotificationExpect = Field(default_factory=NotificationExpect)


class SkillsExpect(Frozen):
    """On the skills extension (SEP-2640): the listing, a skill's entry and files, a directory."""

    skills: TextList | None = None  # names (or SKILL.md URIs) that must be listed
    absent: TextList | None = None  # names (or URIs) that must not be listed
    files: TextList | None = None  # paths relative to the skill root (or URIs) its entry lists (load: read)
    frontmatter: dict[str, Any] | None = None  # field -> value in the skill entry's frontmatter
    children: TextList | None = None  # names of direct children the directory must hold


class SkillsBlock(Frozen):
    """`assert_skills:` (toolproof's own) - exactly one of: `list` (skills/list, every page), `get`
    (skills/get of a SKILL.md URI), `load` (a skill by name or URI, each file read and verified against its
    entry's digest, size and frontmatter), `directory` (resources/directory/read of a directory URI)."""

    kind: Literal["assert_skills"] = Field(default="assert_skills", exclude=True)
    list_: ListParams | None = Field(default=None, alias="list")
    get: Text | None = None
    load: Text | None = None
    directory: Text | None = None
    expect: SkillsExpect = Field(default_factory=SkillsExpect)

    @model_validator(mode="after")
    def _one_request(self) -> SkillsBlock:
        given = [name.rstrip("_") for name in SKILL_REQUESTS if getattr(self, name) is not None]
        if len(given) != 1:
            shown = ", ".join(given) or "none"
            raise ValueError(f"give exactly one of list, get, load, directory (given: {shown})")
        return self


SKILL_REQUESTS = ("list_", "get", "load", "directory")


class TraceEntry(Frozen):
    """One recorded tool call of a trajectory."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    tool: Text
    args: dict[str, Any] = Field(default_factory=dict)


class TrajectoryCheck(Frozen):
    """One `trajectory:` check as mcp-assert writes it; the loader maps it onto the agent assertion that
    checks the same (`order`: an ordered sequence, `presence`/`absence`: tools (not) called, `args_contain`:
    some call of the tool with those arguments, compared in Go `%v` form)."""

    type: Literal["order", "presence", "absence", "args_contain"]
    tools: TextList = Field(default_factory=list)
    tool: Text | None = None
    args: dict[str, Any] = Field(default_factory=dict)


class TrajectoryBlock(Frozen):
    """`trajectory:` - checks on a recorded trace; no server is started. `checks`: the written checks as the
    agent assertions that check the same, in the order written."""

    kind: Literal["trajectory"] = Field(default="trajectory", exclude=True)
    checks: Checks
    trace: list[TraceEntry] | None = None
    audit_log: Text | None = None


Block = Annotated[
    AssertBlock
    | ResourcesBlock
    | PromptsBlock
    | CompletionBlock
    | SamplingBlock
    | LoggingBlock
    | NotificationsBlock
    | ToolsBlock
    | SkillsBlock
    | TrajectoryBlock,
    Field(discriminator="kind"),
]


class Case(CaseEnvelope):
    """One server test: start or reach a server, run setup, make one request, check it."""

    server: ServerConfig = Field(default_factory=ServerConfig)
    setup: list[SetupStep] = Field(default_factory=list)
    block: Block
    timeout: float | None = None
    skip_unless_env: str | None = None
    isolate: bool = False  # a fresh server of its own even under --reuse-server
    snapshot_masks: list[str] = Field(default_factory=list)  # toolproof's own: patterns `snapshot` ignores
