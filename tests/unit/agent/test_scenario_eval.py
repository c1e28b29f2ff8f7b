"""Evaluating a case: scopes, depends_on, results per check and per case."""

from __future__ import annotations

from tests.unit.agent.builders import call, case, conversation, evaluate_case, run, turn

from toolproof.model.result import Status
from toolproof.model.scenario import (
    AgentTurn,
    CallCheck,
    ExactMatcher,
    RegexCheck,
    StatusCheck,
    TextCheck,
    TokenLimitCheck,
    ToolsCalled,
    ToolsNotCalled,
)


def test_turn_checks_read_their_turn_and_conversation_checks_everything() -> None:
    agent_case = case(
        CallCheck(name="process_refund"),
        CallCheck(name="cancel_order", condition="not_called"),
        TextCheck(op="contains", values=("refund",)),
        turns=(
            AgentTurn(user="I was charged twice"),
            AgentTurn(
                user="Order number is ORD-9921",
                assertions=(
                    CallCheck(name="lookup_order", arguments={"order_id": ExactMatcher(value="ORD-9921")}),
                ),
            ),
            AgentTurn(user="Yes, please process the refund"),
        ),
    )
    good = conversation(
        turn(reply="Sorry to hear that"),
        turn(call("lookup_order", {"order_id": "ORD-9921"}), reply="Found it"),
        turn("process_refund", reply="Your refund is on its way"),
    )
    assert evaluate_case(agent_case, good).status is Status.PASS
    # the lookup happened, but in the wrong turn; the final reply does not mention the refund
    bad = conversation(
        turn(call("lookup_order", {"order_id": "ORD-9921"}), reply="Found"),
        turn(reply="Which order?"),
        turn("process_refund", "cancel_order", reply="Done"),
    )
    statuses = [o.status for o in evaluate_case(agent_case, bad).outcomes]
    assert statuses == [Status.FAIL, Status.PASS, Status.FAIL, Status.FAIL]


def test_a_turn_the_run_does_not_have_fails() -> None:
    agent_case = case(
        turns=(AgentTurn(user="a"), AgentTurn(user="b", assertions=(ToolsCalled(tools=("x",)),)))
    )
    outcome = evaluate_case(agent_case, run("x")).outcomes[0]
    assert (
        outcome.failure is not None
        and outcome.failure.message == "turn 2 was not recorded (the run has 1 turns)"
    )


def test_depends_on_skips_and_does_not_count() -> None:
    agent_case = case(
        StatusCheck(id="status_ok", expected=200),
        RegexCheck(id="mentions", pattern="hotel|accommodation", flavor="js", depends_on=("status_ok",)),
        ToolsNotCalled(tools=("x",), depends_on=("status_ok", "mentions")),
    )
    passing = evaluate_case(agent_case, run(reply="3 hotels", http_status=200))
    assert [o.status for o in passing.outcomes] == [Status.PASS] * 3
    failing = evaluate_case(agent_case, run(reply="3 hotels", http_status=503))
    assert [o.status for o in failing.outcomes] == [Status.FAIL, Status.SKIP, Status.SKIP]
    assert failing.outcomes[1].reason == "skipped: depends on status_ok, which did not pass (FAIL)"
    assert failing.outcomes[2].reason is not None and "status_ok" in failing.outcomes[2].reason
    results = failing.assertion_results()
    assert [r.status for r in results] == [Status.FAIL, Status.SKIP, Status.SKIP]


def test_dependencies_are_evaluated_first_whatever_the_order() -> None:
    agent_case = case(
        TextCheck(op="contains", values=("ok",), depends_on=("later",)), ToolsCalled(id="later", tools=("t",))
    )
    assert [o.status for o in evaluate_case(agent_case, run("t", reply="ok")).outcomes] == [Status.PASS] * 2
    assert [o.status for o in evaluate_case(agent_case, run(reply="ok")).outcomes] == [
        Status.SKIP,
        Status.FAIL,
    ]


def test_a_not_evaluated_dependency_skips_its_dependents() -> None:
    agent_case = case(
        TokenLimitCheck(id="budget", max_total=10), ToolsCalled(tools=("t",), depends_on=("budget",))
    )
    outcomes = evaluate_case(agent_case, run("t")).outcomes
    assert [o.status for o in outcomes] == [Status.SKIP, Status.SKIP]


def test_case_result_aggregates() -> None:
    agent_case = case(
        ToolsCalled(tools=("a",)), TextCheck(op="equals", values=("done",)), TokenLimitCheck(max_total=5)
    )
    passed = evaluate_case(agent_case, run("a", reply="Done")).case_result()
    assert passed.status is Status.PASS and passed.failure is None
    assert (
        passed.reason
        == "1 not counted: token_limit total <= 5 (not evaluated: no token usage found in the run)"
    )
    failed = evaluate_case(agent_case, run("b", reply="Done")).case_result(trial=2)
    assert failed.status is Status.FAIL and failed.trial == 2 and failed.failure is not None
    assert failed.failure.message.startswith("tools_called: a: Required tool not used: a")
    assert [item["status"] for item in failed.failure.details["assertions"]] == ["FAIL", "PASS", "SKIP"]


def test_results_are_named_after_case_and_check() -> None:
    agent_case = case(
        ToolsCalled(tools=("a",), label="uses a", line=7),
        turns=(AgentTurn(user="hi", assertions=(TextCheck(op="contains", values=("x",)),)),),
    )
    results = evaluate_case(agent_case, run("a", reply="x")).assertion_results()
    assert [r.name for r in results] == ["case › turn 1: response contains: x", "case › uses a"]
    assert [r.line for r in results] == [1, 7]


def test_context_variable_clash_is_warned() -> None:
    agent_case = case(
        CallCheck(name="t", arguments={"d": ExactMatcher(expression="TODAY")}), context={"TODAY": 1}
    )
    evaluation = evaluate_case(agent_case, run(call("t", {"d": "2026-03-10"})))
    assert evaluation.status is Status.PASS
    assert evaluation.warnings[0] == "context variable TODAY is hidden by the built-in of that name"
