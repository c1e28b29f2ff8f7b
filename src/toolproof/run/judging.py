"""Evaluate a case over a run with judge checks answered by a model provider.

The evaluation itself (`toolproof.check.scenario.evaluate`) is pure and synchronous and asks its judge for
answer text. Here the model is asked ahead: the evaluation runs, the judge requests it made that have no
answer yet are sent to the provider, and it runs again with those answers, until every request it makes is
answered (one round per batch: usually one). A provider failure is the answer to its request: the
evaluation turns it into a classified verdict of the checks in that request, never a crash.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolproof.check.judge import JudgeRequest
from toolproof.check.scenario import Evaluation, evaluate
from toolproof.core.expressions import Clock
from toolproof.model.scenario import AgentCase
from toolproof.model.transcript import Transcript
from toolproof.providers.base import Message, ModelRequest, Provider, ProviderError

MAX_ROUNDS = 16


@dataclass(frozen=True)
class JudgeModel:
    """The judge: a provider and the model to ask, configured apart from the agent's."""

    provider: Provider
    model: str
    max_tokens: int = 2048
    temperature: float | None = 0.0


class _Unanswered(Exception):
    """The evaluation asked something that has not been sent to the judge yet."""


class _Answers:
    """The judge as the evaluation sees it: answers known so far; what is not known yet is noted."""

    def __init__(self) -> None:
        self.known: dict[tuple[str, str], str | ProviderError] = {}
        self.pending: list[JudgeRequest] = []

    def __call__(self, request: JudgeRequest) -> str:
        found = self.known.get(_key(request))
        if found is None:
            self.pending.append(request)
            raise _Unanswered
        if isinstance(found, ProviderError):
            raise found
        return found


def _key(request: JudgeRequest) -> tuple[str, str]:
    return request.system, request.user


async def evaluate_judged(
    case: AgentCase, run: Transcript, *, clock: Clock, judge: JudgeModel | None
) -> Evaluation:
    """The evaluation of `case` over `run`, judge checks answered by `judge` (without one: not evaluated)."""
    if judge is None:
        return evaluate(case, run, clock=clock)
    answers = _Answers()
    scenario = case.id or case.name
    for _ in range(MAX_ROUNDS):
        answers.pending = []
        evaluation = evaluate(case, run, clock=clock, judge=answers)
        if not answers.pending:
            return evaluation
        for request in answers.pending:
            if _key(request) not in answers.known:
                answers.known[_key(request)] = await _ask(judge, request, scenario, len(answers.known))
    raise RuntimeError(f"{case.name}: the judge requests did not settle after {MAX_ROUNDS} rounds")


async def _ask(judge: JudgeModel, request: JudgeRequest, scenario: str, number: int) -> str | ProviderError:
    model_request = ModelRequest(
        model=judge.model,
        messages=(Message(role="user", text=request.user),),
        system=request.system,
        max_tokens=judge.max_tokens,
        temperature=judge.temperature,
        scenario=scenario,
        turn=number,
    )
    try:
        reply = await judge.provider.complete(model_request)
    except ProviderError as error:
        return error
    return reply.text
