"""Evaluate a case over a run with judge checks answered by a model provider, in two phases.

The evaluation (`check.scenario.Evaluating`) is pure: it evaluates every check it can and hands out the
batch of judge questions that must be answered before the rest can be (usually one batch per case, more
only when a judge check depends on another judge check's outcome). Here each batch goes to the provider and
its reply goes back; nothing is evaluated twice. A provider failure is the answer to its batch: the
evaluation turns it into a classified verdict of the checks in it, never a crash.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolproof.check.judge import JudgeRequest
from toolproof.check.scenario import Evaluating, Evaluation
from toolproof.core.expressions import Clock
from toolproof.model.scenario import AgentCase
from toolproof.model.transcript import Transcript
from toolproof.providers.base import Message, ModelRequest, Provider, ProviderError


@dataclass(frozen=True)
class JudgeModel:
    """The judge: a provider and the model to ask, configured apart from the agent's."""

    provider: Provider
    model: str
    max_tokens: int = 2048
    temperature: float | None = 0.0


async def evaluate_judged(
    case: AgentCase, run: Transcript, *, clock: Clock, judge: JudgeModel | None
) -> Evaluation:
    """The evaluation of `case` over `run`, judge checks answered by `judge` (without one: not evaluated)."""
    evaluating = Evaluating(case, run, clock, judged=judge is not None)
    scenario = case.id or case.name
    asked = 0
    while (request := evaluating.question()) is not None:
        assert judge is not None
        evaluating.answer(await _ask(judge, request, scenario, asked))
        asked += 1
    return evaluating.result()


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
