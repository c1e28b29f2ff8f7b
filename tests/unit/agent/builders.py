"""Small builders for observed runs and cases, shared by the agent-check tests."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from toolproof.check.judge import Judge, JudgeRequest
from toolproof.check.scenario import CheckOutcome, Evaluation, evaluate
from toolproof.core.expressions import Clock, Scope
from toolproof.load.yaml_source import read_yaml
from toolproof.model.envelope import SourceRef
from toolproof.model.scenario import AgentCase, AgentTurn, Assertion
from toolproof.model.transcript import Node, ToolCall, Transcript, Turn
from toolproof.sources.traces.usage import with_run_usage

ZONE = ZoneInfo("Europe/Lisbon")
NOW = datetime(2026, 3, 10, 9, 0, tzinfo=ZONE)  # a Tuesday
CLOCK = Clock(NOW, ZONE)


def scope(**variables: Any) -> Scope:
    return Scope(CLOCK, variables)


def call(tool: str, arguments: Any = None, **fields: Any) -> ToolCall:
    return ToolCall(tool=tool, arguments={} if arguments is None else arguments, **fields)


def numbered(calls: list[ToolCall], start: int = 0) -> tuple[ToolCall, ...]:
    return tuple(each.model_copy(update={"position": start + index}) for index, each in enumerate(calls))


def turn(*calls: ToolCall | str, reply: str = "", user: str = "", **fields: Any) -> Turn:
    """A turn; plain strings are calls without arguments."""
    made = [call(each) if isinstance(each, str) else each for each in calls]
    return Turn(user=user, reply=reply, calls=numbered(made), **fields)


def run(*calls: ToolCall | str, reply: str = "", user: str = "", **fields: Any) -> Transcript:
    """A one-turn run as a source gives it (token usage read from its body)."""
    return with_run_usage(Transcript(turns=(turn(*calls, reply=reply, user=user, **fields),)))


def conversation(*turns: Turn) -> Transcript:
    """Turns with calls renumbered across the whole run."""
    renumbered = []
    position = 0
    for each in turns:
        calls = numbered(list(each.calls), position)
        position += len(calls)
        renumbered.append(each.model_copy(update={"calls": calls}))
    return Transcript(turns=tuple(renumbered))


def node(name: str, *calls: ToolCall | str, **fields: Any) -> Node:
    made = [call(each) if isinstance(each, str) else each for each in calls]
    return Node(name=name, calls=tuple(made), **fields)


def workflow(*nodes: Node, reply: str = "", **fields: Any) -> Transcript:
    """A one-turn run made of nodes, as a source gives it: nested calls numbered in order, token usage read
    from the node outputs."""
    position = 0
    placed = []
    for index, each in enumerate(nodes):
        calls = numbered([c.model_copy(update={"node": each.name}) for c in each.calls], position)
        position += len(calls)
        placed.append(each.model_copy(update={"calls": calls, "position": index}))
    return with_run_usage(Transcript(turns=(Turn(reply=reply, nodes=tuple(placed), **fields),)))


def case(*assertions: Assertion, turns: tuple[AgentTurn, ...] = (), **fields: Any) -> AgentCase:
    return AgentCase(
        name="case",
        source=SourceRef(file=Path("case.yaml")),
        dialect="test",
        assertions=assertions,
        turns=turns,
        **fields,
    )


def check(
    assertion: Assertion, observed: Transcript, judge: Judge | None = None, **fields: Any
) -> CheckOutcome:
    """The outcome of one conversation-level check."""
    return evaluate(case(assertion, **fields), observed, clock=CLOCK, judge=judge).outcomes[0]


def evaluate_case(agent_case: AgentCase, observed: Transcript, judge: Judge | None = None) -> Evaluation:
    return evaluate(agent_case, observed, clock=CLOCK, judge=judge)


class ScriptedJudge:
    """A judge that answers from a rule: `verdict(check, answer_text)` gives (pass, score) for each item."""

    def __init__(self, verdict: Callable[[dict[str, Any], str], bool]) -> None:
        self.verdict = verdict
        self.requests: list[JudgeRequest] = []

    def __call__(self, request: JudgeRequest) -> str:
        self.requests.append(request)
        results = []
        for item in request.payload["checks"]:
            answer = item.get("answer", request.payload["final_answer"])
            passed = self.verdict(item, answer)
            results.append(
                {"id": item["id"], "pass": passed, "score": 1.0 if passed else 0.2, "reason": "scripted"}
            )
        return json.dumps({"results": results})


def load_file(path: Path, loader: Callable[[object, Path], list[Any]]) -> list[Any]:
    """Every case (or load error) a dialect loader gives for the documents of a YAML or JSON file."""
    source = read_yaml(path)
    found: list[Any] = list(source.errors)
    for document in source.documents:
        found.extend(loader(document, path))
    return found


def only_case(path: Path, loader: Callable[[object, Path], list[Any]]) -> AgentCase:
    (found,) = load_file(path, loader)
    assert isinstance(found, AgentCase), found
    return found
