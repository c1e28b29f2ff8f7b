"""Trials and judging through the suite runner, with stand-in models whose answers vary."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from tests.integration.agent.conftest import NOTES

from toolproof.load.scenario_file import load
from toolproof.model.events import Event
from toolproof.model.result import CaseResult, Status
from toolproof.model.scenario import AgentCase
from toolproof.providers.base import ModelReply, ModelRequest, ToolUse
from toolproof.run.agent_plan import AgentSpec, Plan
from toolproof.run.agent_suite import EvalOptions, run_agent_suite
from toolproof.run.judging import JudgeModel
from toolproof.sources.options import ServerOptions

SPEC = AgentSpec(provider="scripted", model="flaky")


@dataclass
class Flaky:
    """Looks up note 2, then answers right in every other run (the run's number rides in its tool use id,
    so concurrent trials do not mix)."""

    name: str = "flaky"
    runs: int = 0

    async def complete(self, request: ModelRequest) -> ModelReply:
        if len(request.messages) == 1:
            self.runs += 1
            return ModelReply(
                tool_uses=(ToolUse(id=f"g{self.runs}", name="get_note", arguments={"note_id": 2}),)
            )
        number = int(request.messages[1].tool_uses[0].id[1:])
        return ModelReply(text="Milk, eggs." if number % 2 else "Nothing.")


@dataclass
class Judge:
    """Passes every check, and keeps the requests it was sent."""

    name: str = "judge"
    requests: list[ModelRequest] = field(default_factory=list)

    async def complete(self, request: ModelRequest) -> ModelReply:
        self.requests.append(request)
        payload = json.loads(request.messages[0].text)
        results = [
            {"id": check["id"], "pass": True, "score": 1, "reason": "fine"} for check in payload["checks"]
        ]
        return ModelReply(text=json.dumps({"results": results}))


class Collect:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def handle(self, event: Event) -> None:
        self.events.append(event)


def case(tmp_path: Path, extra: str = "", checks: str = "  - reply: {contains: milk}\n") -> AgentCase:
    path = tmp_path / "case.yaml"
    path.write_text(
        "name: shopping\nprompt: What do I need to buy?\n"
        f'servers: {{notes: {{command: python, args: ["{NOTES}"]}}}}\n'
        "expect:\n" + checks + extra
    )
    from toolproof.load.yaml_source import read_yaml

    (loaded,) = load(read_yaml(path).documents[0], path)
    assert isinstance(loaded, AgentCase)
    return loaded


async def run(plan: Plan, **options: object) -> list[CaseResult]:
    settings = EvalOptions(server=ServerOptions(environ=dict(os.environ), timeout_s=60), **options)
    return await run_agent_suite([plan], settings, jobs=2, sink=Collect())


@pytest.mark.parametrize(("threshold", "status"), [(1.0, Status.FAIL), (0.5, Status.PASS)])
async def test_trials_give_pass_at_k_and_the_threshold_decides(
    tmp_path: Path, threshold: float, status: Status
) -> None:
    agent = Flaky()
    the_case = case(tmp_path)
    plan = Plan(the_case, SPEC, the_case.servers or {})
    (result,) = await run(plan, providers={SPEC: agent}, trials=4, k=2, pass_threshold=threshold)
    stats = result.trials
    assert stats is not None
    assert (stats.n, stats.passed, stats.k) == (4, 2, 2)
    assert stats.pass_at_k == pytest.approx(5 / 6)  # 1 - C(2,2)/C(4,2)
    assert stats.pass_hat_k == pytest.approx(1 / 6)  # C(2,2)/C(4,2)
    assert result.status is status
    if status is Status.FAIL:
        assert result.failure is not None
        assert result.failure.message.startswith("2 of 4 trials did not pass")


async def test_the_judge_sees_the_prompt_tool_outputs_and_catalog(tmp_path: Path) -> None:
    extra = (
        "  - judge: {criteria: Lists the items}\n"
        "judge_context: {prompt: true, tool_outputs: true, tool_catalog: true}\n"
    )
    the_case = case(tmp_path, extra)
    plan = Plan(the_case, SPEC, the_case.servers or {})
    judge = Judge()
    agent = Flaky()
    (result,) = await run(plan, providers={SPEC: agent}, judge=JudgeModel(judge, "judge-model"))
    assert result.status is Status.PASS
    (request,) = judge.requests
    assert request.model == "judge-model"
    context = json.loads(request.messages[0].text)["context"]
    assert context["scenario_prompt"] == "What do I need to buy?"
    assert context["tool_outputs"][0]["tool"] == "get_note"
    assert "Milk, eggs, coffee." in context["tool_outputs"][0]["output"]
    assert any(tool["name"] == "search_notes" for tool in context["tool_catalog"])


@pytest.mark.parametrize(("share", "status"), [(0.5, Status.PASS), (0.75, Status.FAIL)])
async def test_a_check_with_its_own_pass_threshold_is_judged_over_the_trials(
    tmp_path: Path, share: float, status: Status
) -> None:
    checks = f"  - reply: {{contains: milk}}\n    pass_threshold: {share}\n  - called: {{tool: get_note}}\n"
    the_case = case(tmp_path, checks=checks)
    plan = Plan(the_case, SPEC, the_case.servers or {})
    (result,) = await run(plan, providers={SPEC: Flaky()}, trials=4)
    assert result.trials is not None and result.trials.passed == 2  # whole trials: 2 of 4
    assert result.status is status
    if status is Status.FAIL:
        assert result.failure is not None
        assert result.failure.message == "response contains: milk: passed 2 of 4 trials (needed 75%)"
