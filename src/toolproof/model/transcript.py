"""An observed agent run: what the user said, what the agent called, what it answered, and why it stopped.

Every source of agent runs (the live agent loop, a cassette's replay, an HTTP target, the trace readers,
intercept, an mcp-assert audit log) adapts what it saw into a `Transcript` at its own edge, typed field by
field (token usage included), so a checker never needs to know where a run came from.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Literal

from pydantic import Field

from toolproof.model.base import Frozen
from toolproof.model.result import Failure, FailureKind

Platform = Literal["custom", "n8n", "flowise"]


class Usage(Frozen):
    """Token counts; a count the source did not report is None."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None

    @property
    def total(self) -> int | None:
        """The total, or input + output when no total was reported."""
        if self.total_tokens is not None:
            return self.total_tokens
        if self.input_tokens is None and self.output_tokens is None:
            return None
        return (self.input_tokens or 0) + (self.output_tokens or 0)

    @staticmethod
    def summed(parts: Iterable[Usage]) -> Usage | None:
        """The sum of `parts`, None when there are none."""
        total: Usage | None = None
        for part in parts:
            total = part if total is None else total + part
        return total

    def __add__(self, other: Usage) -> Usage:
        def plus(a: int | None, b: int | None) -> int | None:
            return None if a is None and b is None else (a or 0) + (b or 0)

        return Usage(
            input_tokens=plus(self.input_tokens, other.input_tokens),
            output_tokens=plus(self.output_tokens, other.output_tokens),
            total_tokens=plus(self.total, other.total),
        )


class ToolCall(Frozen):
    """One tool call: its name, parsed arguments, what it returned, and where it happened.

    `position` is the 0-based order of the call among all calls of the run; `node` names the workflow node
    that made it, if any. `arguments` is the decoded argument value: a source that receives JSON text
    parses it first, and text that is not JSON stays a string.
    """

    tool: str
    arguments: Any = Field(default_factory=dict)
    result: Any = None
    is_error: bool = False
    duration_ms: float | None = None
    position: int = 0
    node: str | None = None
    id: str | None = None


class GuardrailEvent(Frozen):
    """A validator or guardrail that ran on a turn; `triggered` is False when it ran and let the turn pass."""

    name: str
    triggered: bool = True
    message: str = ""


class Node(Frozen):
    """One executed workflow step (an n8n node, a Flowise component, a span of a custom trace).

    `arguments` holds the node's parameters (what `expected_arguments` of a node check reads), `output` its
    output, `calls` the tool calls made inside it, `position` its 0-based order among the run's nodes.
    """

    name: str
    type: str | None = None
    status: str | None = None
    arguments: Any = Field(default_factory=dict)
    output: Any = None
    error: str | None = None
    calls: tuple[ToolCall, ...] = ()
    position: int = 0
    duration_ms: float | None = None


class Turn(Frozen):
    """One user message and everything that followed it until the agent's final reply.

    `calls` are the tool calls made directly (outside any node); calls made inside a node are in that node's
    `calls`. `guardrails` are the validators that ran on the turn; None means the source recorded nothing
    about guardrails (not that none triggered). `body` is the raw response body where there is one (an HTTP
    target's response, the `data` of a legacy Mibo trace); None means there is none.
    """

    user: str = ""
    reply: str = ""
    calls: tuple[ToolCall, ...] = ()
    nodes: tuple[Node, ...] = ()
    usage: Usage | None = None
    http_status: int | None = None
    duration_ms: float | None = None
    guardrails: tuple[GuardrailEvent, ...] | None = None
    body: Any = None

    def all_calls(self) -> Iterator[ToolCall]:
        """Direct and nested calls, in the order they happened (by `position`)."""
        if not self.nodes:
            yield from self.calls
            return
        nested = [call for node in self.nodes for call in node.calls]
        yield from sorted([*self.calls, *nested], key=lambda call: call.position)


class RunStop(Frozen):
    """Why a run ended before its end: the failure `kind` and `message`, the source's `reason` for it
    (`max_steps`, `provider_error`; None when the kind says it all), and the 1-based `turn` and model `step`
    it stopped at, when the source counts them."""

    reason: str | None = None
    kind: FailureKind = FailureKind.TRANSPORT
    turn: int | None = None
    step: int | None = None
    message: str = "the run stopped early"

    def as_failure(self) -> Failure:
        """The stop as a verdict's failure: its kind and message, its reason as the failed check, and the stop
        itself in the details."""
        return Failure(
            kind=self.kind,
            message=self.message,
            check=self.reason,
            details={"stop": self.model_dump(mode="json", exclude_none=True)},
        )


class ToolDeclaration(Frozen):
    """A tool as it was offered to the model: its name, description and JSON Schema input."""

    name: str
    description: str = ""
    input_schema: dict[str, Any] = Field(default_factory=dict)


class Transcript(Frozen):
    """A whole observed run: the one observation of an agent run, whatever its source.

    `scenario` names the case the run was recorded for when the source says so (MCPLab's `scenario_id`);
    `run` tells apart several runs of one scenario (MCPLab's agent and run index, a trace id, an HTTP
    target's session id); `source` says where the run was read from, for messages; `started_ms` is when the
    run started (epoch milliseconds) and `duration_ms` how long it took, when recorded. `stop` says why the
    run ended early (None: it ran to its end); `no_reply` that the source records tool calls only (an
    mcp-assert audit log), so there is no reply to judge, not an empty one. `provider` and `model` name the
    model that ran, `tools` the catalog it was offered (None: not recorded), `request_ids` the ids of the
    requests that made the run, `platform` the workflow platform whose parser read it, `error` the error the
    run recorded for itself (a root span's, MCPLab's), which is not judged.
    """

    turns: tuple[Turn, ...] = ()
    scenario: str | None = None
    run: str | None = None
    source: str = ""
    started_ms: float | None = None
    duration_ms: float | None = None
    stop: RunStop | None = None
    no_reply: bool = False
    provider: str | None = None
    model: str | None = None
    tools: tuple[ToolDeclaration, ...] | None = None
    request_ids: tuple[str, ...] = ()
    platform: Platform | None = None
    error: str | None = None

    @property
    def stopped(self) -> Failure | None:
        """Why the run stopped early, as a failure (the `model.observation.Observed` shape); None when it ran
        to its end."""
        return None if self.stop is None else self.stop.as_failure()

    @property
    def final(self) -> Turn:
        """The last turn (an empty one for a run without turns)."""
        return self.turns[-1] if self.turns else Turn()

    @property
    def user_input(self) -> str:
        """The first user message."""
        return self.turns[0].user if self.turns else ""
