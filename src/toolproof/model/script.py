"""A scripted model's answers, by scenario, turn and step (the format is described in
`providers/scripted.py`)."""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from toolproof.model.base import Frozen
from toolproof.model.transcript import Usage


class ScriptedCall(Frozen):
    """One tool call the model makes."""

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None


class ScriptedStep(Frozen):
    """One answer: tool calls to make (with optional text), or the final reply of the turn."""

    reply: str | None = None
    tools: list[ScriptedCall] = Field(default_factory=list)
    usage: Usage | None = None

    @model_validator(mode="after")
    def _says_something(self) -> ScriptedStep:
        if self.reply is None and not self.tools:
            raise ValueError("a step needs `reply` or `tools`")
        return self


class ScriptedTurn(Frozen):
    """The answers of one user turn, in order."""

    steps: list[ScriptedStep] = Field(min_length=1)


class ScriptFile(Frozen):
    """A whole script file."""

    scenarios: dict[str, list[ScriptedTurn]]
