"""The parts of one observed run a checker reads, computed once per scope (a turn, or None: the whole
conversation), and `Scoped`: that view at one scope, as a registered checker gets it."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from toolproof.check.steps import CallScope, Steps
from toolproof.check.usage import summed_usage
from toolproof.core.expressions import Scope
from toolproof.model.transcript import ToolCall, Transcript, Turn, Usage

if TYPE_CHECKING:
    from toolproof.check.answer import Answer


@dataclass
class RunView:
    """The parts of a run each scope reads, computed once per scope (None = the whole conversation)."""

    run: Transcript
    _steps: dict[int | None, tuple[Steps, Steps, list[ToolCall]]] = field(default_factory=dict)
    _answers: dict[int | None, Answer] = field(default_factory=dict)
    _usage: dict[int | None, Usage | None] = field(default_factory=dict)

    def turns(self, turn: int | None) -> tuple[Turn, ...]:
        return self.run.turns if turn is None else (self.run.turns[turn],)

    def numbered(self, turn: int | None) -> list[tuple[int, Turn]]:
        """The turns of the scope with their 0-based numbers in the run."""
        return list(enumerate(self.run.turns)) if turn is None else [(turn, self.run.turns[turn])]

    def reply_turn(self, turn: int | None) -> Turn:
        return self.run.final if turn is None else self.run.turns[turn]

    @cached_property
    def has_nodes(self) -> bool:
        return any(turn.nodes for turn in self.run.turns)

    @property
    def no_reply(self) -> bool:
        """The run recorded no reply at all (not an empty one)."""
        return self.run.no_reply

    def steps(self, turn: int | None) -> tuple[Steps, Steps, list[ToolCall]]:
        """(tool calls, nodes, the calls themselves) of the scope."""
        if turn not in self._steps:
            turns = self.turns(turn)
            calls = [call for each in turns for call in each.all_calls()]
            nodes = [node for each in turns for node in each.nodes]
            self._steps[turn] = (Steps.of_calls(calls), Steps.of_nodes(nodes), calls)
        return self._steps[turn]

    def answer(self, turn: int | None) -> Answer:
        if turn not in self._answers:
            from toolproof.check.answer import Answer  # the JSON checks' reader: loaded when one runs

            self._answers[turn] = Answer(self.reply_turn(turn))
        return self._answers[turn]

    def usage(self, turn: int | None) -> Usage | None:
        if turn not in self._usage:
            self._usage[turn] = summed_usage(self.turns(turn))
        return self._usage[turn]


@dataclass(frozen=True)
class Scoped:
    """The run at one scope, with the case's expression scope: what every registered checker reads."""

    view: RunView
    turn: int | None
    expressions: Scope

    @property
    def calls(self) -> Steps:
        """The tool calls of the scope, indexed by name."""
        return self.view.steps(self.turn)[0]

    @property
    def nodes(self) -> Steps:
        return self.view.steps(self.turn)[1]

    @property
    def raw_calls(self) -> list[ToolCall]:
        return self.view.steps(self.turn)[2]

    @property
    def call_scope(self) -> CallScope:
        return CallScope(self.calls, self.nodes, self.view.has_nodes)

    @property
    def reply(self) -> str:
        return self.view.reply_turn(self.turn).reply

    @property
    def answer(self) -> Answer:
        return self.view.answer(self.turn)

    @property
    def turns(self) -> tuple[Turn, ...]:
        return self.view.turns(self.turn)

    @property
    def numbered(self) -> list[tuple[int, Turn]]:
        return self.view.numbered(self.turn)

    @property
    def usage(self) -> Usage | None:
        return self.view.usage(self.turn)
