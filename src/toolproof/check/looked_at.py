"""An agent run as report steps: each user message, tool call and reply in order, with the checks that looked
at it (a tool check at the calls of the tools it names, any other check at the reply of its turn)."""

from __future__ import annotations

from toolproof.check.registry import registered
from toolproof.check.scenario import CheckOutcome, Evaluation
from toolproof.model.result import Step


def run_steps(evaluation: Evaluation) -> tuple[Step, ...]:
    """The run's steps in order, each naming the checks that looked at it, with their verdict and, for a
    judge, its reason."""
    turns = evaluation.run.turns
    last = len(turns) - 1
    steps: list[Step] = []
    for number, turn in enumerate(turns):
        mine = [o for o in evaluation.outcomes if o.turn in (None, number)]
        steps.append(Step(kind="user", request=turn.user, turn=number))
        for call in turn.all_calls():
            steps.append(
                Step(
                    kind="tool_call",
                    name=call.tool,
                    request=call.arguments,
                    response=call.result,
                    is_error=call.is_error,
                    duration_ms=call.duration_ms,
                    turn=number,
                    checks=tuple(_note(o) for o in mine if _looks_at_call(o, call.tool)),
                )
            )
        readers = [
            o
            for o in mine
            if _tools(o) == frozenset() and (o.turn == number or (o.turn is None and number == last))
        ]
        steps.append(
            Step(
                kind="reply",
                response=turn.reply,
                duration_ms=turn.duration_ms,
                turn=number,
                checks=tuple(_note(o) for o in readers),
            )
        )
    return tuple(steps)


def _tools(outcome: CheckOutcome) -> frozenset[str] | None:
    """The tools whose calls a check looks at, as its registration declares (None: every call; empty: it
    looks at the reply)."""
    return registered(outcome.check).tools(outcome.check)


def _looks_at_call(outcome: CheckOutcome, tool: str) -> bool:
    tools = _tools(outcome)
    return tools is None or tool in tools


def _note(outcome: CheckOutcome) -> str:
    """`label: STATUS`, then why (a failure's message, a judge's reason, a skip's reason)."""
    why = ""
    if outcome.failure is not None:
        reason = outcome.failure.details.get("reason")
        why = str(reason) if reason and outcome.check.kind == "judge" else outcome.failure.message
    elif outcome.reason:
        why = outcome.reason
    return f"{outcome.label}: {outcome.status.value}" + (f" ({why})" if why else "")
