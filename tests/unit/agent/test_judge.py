"""Judge checks: one batched request per run, context, parsing, thresholds, constraints, failures."""

from __future__ import annotations

import json
from typing import Any

from tests.unit.agent.builders import (
    CLOCK,
    call,
    case,
    conversation,
    evaluate_case,
    node,
    run,
    turn,
    workflow,
)

from toolproof.check.judge import JudgeRequest, extract_json
from toolproof.check.scenario import Evaluating
from toolproof.model.result import Status
from toolproof.model.scenario import AgentTurn, JudgeCheck, JudgeContext, ToolsCalled


class ScriptedJudge:
    """Answers every request with a fixed text (or one built from the request) and records the requests."""

    def __init__(self, answer: str | Any) -> None:
        self.answer = answer
        self.requests: list[JudgeRequest] = []

    def __call__(self, request: JudgeRequest) -> str:
        self.requests.append(request)
        return self.answer(request) if callable(self.answer) else self.answer


def results(*items: dict[str, Any]) -> str:
    return json.dumps({"results": list(items)})


def test_one_batched_request_with_context() -> None:
    checks = (
        JudgeCheck(label="addresses_question", criteria="Confirm the answer addresses the question."),
        JudgeCheck(label="logical_time_range", criteria="Confirm earliest and latest timestamps."),
    )
    agent_case = case(
        *checks,
        turns=(AgentTurn(user="When did it happen?"),),
        judge_context=JudgeContext(include_prompt=True, include_tool_sequence=True, include_tool_inputs=True),
    )
    judge = ScriptedJudge(
        results(
            {"id": "agent-check-1", "pass": True, "reason": "direct"},
            {"id": "agent-check-2", "pass": False, "reason": "no latest timestamp"},
        )
    )
    observed = run(call("query_logs", {"from": "08:00"}), reply="It started at 08:00.")
    evaluation = evaluate_case(agent_case, observed, judge)
    assert evaluation.judge_requests == 1 and len(judge.requests) == 1
    payload = judge.requests[0].payload
    assert payload["final_answer"] == "It started at 08:00."
    assert payload["context"] == {
        "scenario_prompt": "When did it happen?",
        "tool_sequence": ["query_logs"],
        "tool_inputs": [{"tool": "query_logs", "arguments": {"from": "08:00"}}],
    }
    assert [item["id"] for item in payload["checks"]] == ["agent-check-1", "agent-check-2"]
    assert [o.status for o in evaluation.outcomes] == [Status.PASS, Status.FAIL]
    assert evaluation.outcomes[1].failure is not None
    assert evaluation.outcomes[1].failure.message == "no latest timestamp"


def test_no_context_by_default() -> None:
    judge = ScriptedJudge(results({"id": "agent-check-1", "pass": True}))
    evaluate_case(case(JudgeCheck(criteria="polite")), run(reply="Hi"), judge)
    assert "context" not in judge.requests[0].payload


def test_invalid_json_fails_every_check_and_a_missing_id_fails_its_check() -> None:
    two = case(JudgeCheck(criteria="a"), JudgeCheck(criteria="b"))
    broken = evaluate_case(two, run(reply="x"), ScriptedJudge("I think both pass"))
    assert all(o.status is Status.FAIL for o in broken.outcomes)
    assert all(o.failure is not None and "invalid JSON" in o.failure.message for o in broken.outcomes)
    partial = evaluate_case(
        two, run(reply="x"), ScriptedJudge(results({"id": "agent-check-1", "pass": True}))
    )
    assert partial.outcomes[0].passed
    assert partial.outcomes[1].failure is not None
    assert partial.outcomes[1].failure.message == 'Judge did not return a result for "b"'


def test_fenced_or_embedded_json_is_read() -> None:
    assert extract_json('Here:\n```json\n{"results": []}\n```') == {"results": []}
    assert extract_json('Sure! {"results": [{"id": "x", "reason": "a } inside"}]} done') == {
        "results": [{"id": "x", "reason": "a } inside"}]
    }


def test_scores_against_thresholds_and_negative_constraints() -> None:
    semantic = JudgeCheck(
        criteria="confirms the reservation with date, time and party size",
        threshold=0.85,
        negative_constraints=("Should not mention competitors", "Should not invent availability"),
    )
    agent_case = case(semantic)

    def answer(score: float, constraint_ok: bool) -> str:
        return results(
            {"id": "agent-check-1", "score": score, "reason": "ok"},
            {"id": "agent-check-1-constraint-1", "pass": True},
            {"id": "agent-check-1-constraint-2", "pass": constraint_ok, "reason": "claims free tables"},
        )

    assert evaluate_case(agent_case, run(reply="x"), ScriptedJudge(answer(0.9, True))).outcomes[0].passed
    low = evaluate_case(agent_case, run(reply="x"), ScriptedJudge(answer(0.8, True))).outcomes[0].failure
    assert low is not None and low.message.startswith("score 0.8 is below the threshold 0.85")
    violated = (
        evaluate_case(agent_case, run(reply="x"), ScriptedJudge(answer(0.95, False))).outcomes[0].failure
    )
    assert violated is not None
    assert violated.message == "violated constraint 'Should not invent availability': claims free tables"
    unscored = evaluate_case(
        agent_case, run(reply="x"), ScriptedJudge(results({"id": "agent-check-1", "pass": True}))
    )
    assert unscored.outcomes[0].status is Status.FAIL


def test_target_node_and_grounding() -> None:
    targeted = JudgeCheck(
        criteria="accurate analysis",
        threshold=0.8,
        target_node="Message a model",
        output_key="content.parts.0.text",
        grounding=True,
    )
    observed = workflow(
        node("Message a model", output={"content": {"parts": [{"text": "AAPL RSI is 70"}]}}),
        node("Tools", call("get_quote", {"symbol": "AAPL"}, result="RSI 70")),
        reply="Done",
    )
    judge = ScriptedJudge(results({"id": "agent-check-1", "score": 1, "reason": "grounded"}))
    assert evaluate_case(case(targeted), observed, judge).outcomes[0].passed
    item = judge.requests[0].payload["checks"][0]
    assert item["answer"] == "AAPL RSI is 70"
    assert judge.requests[0].payload["context"]["tool_outputs"][0]["output"] == "RSI 70"
    missing = evaluate_case(case(targeted.model_copy(update={"target_node": "Other"})), observed, judge)
    assert missing.outcomes[0].status is Status.ERROR


def test_turn_level_judge_reads_its_turn() -> None:
    agent_case = case(
        turns=(AgentTurn(user="a", assertions=(JudgeCheck(criteria="greets"),)), AgentTurn(user="b"))
    )
    judge = ScriptedJudge(results({"id": "agent-check-1", "pass": True}))
    evaluate_case(agent_case, conversation(turn(reply="Hello!"), turn(reply="Bye")), judge)
    assert judge.requests[0].payload["checks"][0]["answer"] == "Hello!"


def test_without_a_judge_checks_are_not_evaluated() -> None:
    outcome = evaluate_case(case(JudgeCheck(criteria="x")), run(reply="y")).outcomes[0]
    assert outcome.status is Status.SKIP and outcome.reason == "not evaluated: no judge configured"


def test_a_failing_judge_is_a_verdict_not_a_crash() -> None:
    def broken(request: JudgeRequest) -> str:
        raise ConnectionError("provider down")

    outcome = evaluate_case(case(JudgeCheck(criteria="x")), run(reply="y"), broken).outcomes[0]
    assert outcome.status is Status.ERROR and outcome.failure is not None
    assert "provider down" in outcome.failure.message


def test_judge_checks_depending_on_failed_checks_are_not_sent() -> None:
    agent_case = case(
        ToolsCalled(id="search_called", tools=("search_hotels",)),
        JudgeCheck(criteria="lists hotels", threshold=0.8, depends_on=("search_called",)),
    )
    judge = ScriptedJudge(results())
    evaluation = evaluate_case(agent_case, run(reply="none"), judge)
    assert judge.requests == []
    assert evaluation.outcomes[1].status is Status.SKIP


def test_the_judge_is_asked_out_of_band_and_nothing_is_evaluated_twice() -> None:
    agent_case = case(
        ToolsCalled(id="searched", tools=("search_hotels",)),
        JudgeCheck(id="lists", criteria="lists hotels", depends_on=("searched",)),
        JudgeCheck(criteria="is polite"),
        JudgeCheck(criteria="names a price", depends_on=("lists",)),
    )
    observed = run(call("search_hotels"), reply="Hotel A, 90 EUR.")
    evaluating = Evaluating(agent_case, observed, CLOCK, judged=True)
    first = evaluating.question()
    assert first is not None and [item.prompt for item in first.items] == [
        "lists hotels", "is polite",
    ]
    assert evaluating.question() is first  # asked again before an answer: the same batch, nothing re-run
    evaluating.answer(results({"id": "agent-check-1", "pass": True}, {"id": "agent-check-2", "pass": True}))
    second = evaluating.question()
    assert second is not None and [item.prompt for item in second.items] == ["names a price"]
    evaluating.answer(RuntimeError("judge down"))
    assert evaluating.question() is None
    evaluation = evaluating.result()
    assert evaluation.judge_requests == 2
    assert [o.status for o in evaluation.outcomes] == [Status.PASS, Status.PASS, Status.PASS, Status.ERROR]
    failure = evaluation.outcomes[3].failure
    assert failure is not None and failure.message == "the judge failed: RuntimeError: judge down"


def test_a_passing_judge_check_keeps_its_reason_and_score_for_the_reports() -> None:
    from toolproof.check.looked_at import run_steps

    checks = (
        JudgeCheck(label="polite", criteria="Is it polite?"),
        JudgeCheck(criteria="Is it short?", threshold=0.5),
    )
    judge = ScriptedJudge(
        results(
            {"id": "agent-check-1", "pass": True, "reason": "thanks the user"},
            {"id": "agent-check-2", "score": 0.9, "reason": "one sentence"},
        )
    )
    evaluation = evaluate_case(case(*checks), run(reply="Thank you!"), judge)
    assert [outcome.status for outcome in evaluation.outcomes] == [Status.PASS, Status.PASS]
    assert evaluation.outcomes[0].reason == "thanks the user"
    assert evaluation.outcomes[1].reason == "score 0.9; one sentence"
    reply = run_steps(evaluation)[-1]
    assert any("thanks the user" in note for note in reply.checks)
