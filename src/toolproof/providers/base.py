"""What every model provider speaks: messages and tool specs in, a reply of text and tool uses out.

Adapters (OpenAI-compatible, Anthropic, scripted, replay) translate these plain values to and from their wire
format, so the agent loop, the judge and the cassettes never see a vendor's types.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from toolproof.model.result import FailureKind
from toolproof.model.transcript import Usage

Role = Literal["user", "assistant", "tool"]


@dataclass(frozen=True)
class ToolSpec:
    """A tool offered to the model: the name it calls it by, its description and its JSON Schema input."""

    name: str
    description: str = ""
    input_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})


@dataclass(frozen=True)
class ToolUse:
    """The model asks for one tool call."""

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Message:
    """One conversation message.

    A `user` message has `text`; an `assistant` message has `text` and/or `tool_uses`; a `tool` message
    answers the tool use `tool_use_id` with `text`, flagged `is_error` when the tool failed.
    """

    role: Role
    text: str = ""
    tool_uses: tuple[ToolUse, ...] = ()
    tool_use_id: str | None = None
    is_error: bool = False


@dataclass(frozen=True)
class ModelRequest:
    """One call to a model. `scenario` and `turn` say where in a run it was made (the scripted provider uses
    them; they are not sent on the wire and not part of a cassette key)."""

    model: str
    messages: tuple[Message, ...]
    system: str | None = None
    tools: tuple[ToolSpec, ...] = ()
    max_tokens: int = 4096
    temperature: float | None = None
    scenario: str = ""
    turn: int = 0


@dataclass(frozen=True)
class ModelReply:
    """What the model answered: final text, tool uses to execute (none = final answer), token usage."""

    text: str = ""
    tool_uses: tuple[ToolUse, ...] = ()
    usage: Usage | None = None
    stop_reason: str | None = None


class ProviderError(Exception):
    """A provider could not answer (after its retries); the message says which provider and why. `kind` is the
    failure class the run reports: `transport` (the model could not be reached), `config` (a script that has
    no answer for the request: the test is incomplete, no model failed)."""

    def __init__(self, message: str, *, kind: FailureKind = FailureKind.TRANSPORT) -> None:
        super().__init__(message)
        self.kind = kind


class Provider(Protocol):
    """Anything that answers model requests."""

    name: str

    async def complete(self, request: ModelRequest) -> ModelReply: ...
