"""PromptKit scenarios (seed 004): every snippet as a fixture, with a passing and a failing run."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.unit.agent.builders import (
    ScriptedJudge,
    call,
    conversation,
    evaluate_case,
    load_file,
    only_case,
    turn,
)

from toolproof.load import promptkit
from toolproof.load.errors import LoadError
from toolproof.model.result import Status
from toolproof.model.scenario import CallCheck, GuardrailCheck, JudgeCheck, TextMatcher
from toolproof.model.transcript import GuardrailEvent, Transcript

DATA = Path(__file__).parent / "data" / "promptkit"


def replies(*texts: str) -> Transcript:
    return conversation(*(turn(reply=text) for text in texts))


def banned(name: str, triggered: bool = True) -> tuple[GuardrailEvent, ...]:
    return (GuardrailEvent(name=name, triggered=triggered),)


CASES: list[tuple[str, Transcript, Transcript]] = [
    ("content_includes.yaml", replies("The capital is PARIS."), replies("It is Lyon.")),
    ("content_includes_multiple.yaml", replies("paris, france"), replies("Paris, of course")),
    ("content_matches_email.yaml", replies("Write to help@example.com"), replies("Please call us instead")),
    (
        "content_matches_examples.yaml",
        replies("Hello!", "555-123-4567", "It is #123456", "Yes, it is", "I understand"),
        replies("Hello!", "555-123-4567", "It is #1234", "Yes, it is", "I understand"),
    ),
    (
        "content_matches_common.yaml",
        replies("a@b.io", "see https://example.com", "code AB12CD", "$19.99", "(555) 123-4567"),
        replies("a@b.io", "see example.com", "code AB12CD", "$19.99", "(555) 123-4567"),
    ),
    ("tools_called.yaml", conversation(turn("get_weather", "get_weather")), conversation(turn("search_web"))),
    (
        "tools_called_multiple.yaml",
        conversation(turn("update_customer_address", "check_order_status")),
        conversation(turn("check_order_status")),
    ),
    (
        "tools_not_called.yaml",
        conversation(turn("get_weather")),
        conversation(turn("get_weather", "delete_account")),
    ),
    (
        "tools_not_called_policy.yaml",
        conversation(turn("get_account")),
        conversation(turn("get_account", "update_account")),
    ),
    (
        "tool_args_exact.yaml",
        conversation(turn(call("get_weather", {"location": "San Francisco"}))),
        conversation(turn(call("get_weather", {"location": "SF"}))),
    ),
    (
        "tool_args_regex.yaml",
        conversation(turn(call("analyze_image", {"description": "A blue LOGO"}))),
        conversation(turn(call("analyze_image", {"description": "some text"}))),
    ),
    (
        "tool_args_presence.yaml",
        conversation(turn(call("get_weather", {"location": None}))),
        conversation(turn(call("get_weather", {"city": "Oslo"}))),
    ),
    (
        "conversation_args_exact.yaml",
        conversation(turn(call("get_weather", {"location": "San Francisco"}))),
        conversation(turn(call("get_weather", {"location": "SF"}))),
    ),
    (
        "conversation_args_regex.yaml",
        conversation(turn(call("search_products", {"query": "Gaming Laptop"}))),
        conversation(turn(call("search_products", {"query": "shoes"}))),
    ),
    (
        "conversation_args_combined.yaml",
        conversation(turn(call("create_order", {"category": "electronics", "product_id": "PROD-42"}))),
        conversation(turn(call("create_order", {"category": "electronics", "product_id": "42"}))),
    ),
    (
        "guardrail_triggered.yaml",
        conversation(turn(guardrails=banned("banned_words")), turn(guardrails=banned("banned_words", False))),
        conversation(turn(guardrails=banned("banned_words")), turn(guardrails=banned("max_length"))),
    ),
    (
        "guardrail_max_length.yaml",
        conversation(turn(guardrails=banned("max_length"))),
        conversation(turn(guardrails=banned("banned_words"))),
    ),
    (
        "combining.yaml",
        conversation(turn("get_weather", reply="Today's weather: 21°C")),
        conversation(turn("get_weather", reply="Today's weather: warm")),
    ),
    (
        "conditional_logic.yaml",
        conversation(turn("get_weather"), turn(reply="I can't forecast next month.")),
        conversation(turn("get_weather"), turn("get_weather", reply="I can't forecast next month.")),
    ),
    (
        "progressive_verification.yaml",
        conversation(
            turn(reply="Happy to help with your order"),
            turn("check_order_status", reply="Order #12345 shipped"),
            turn(reply="Expected Friday; day 3"),
        ),
        conversation(
            turn(reply="Happy to help with your order"),
            turn(reply="Order #12345 shipped"),
            turn(reply="Soon"),
        ),
    ),
    (
        "best_practices.yaml",
        conversation(
            turn(reply="Hi! Let me help you track your order, or email us."),
            turn("get_weather"),
            turn(reply="It is usually mild."),
        ),
        conversation(
            turn(reply="Hi! Let me help you track your order, or email us."),
            turn("get_weather"),
            turn("get_weather", reply="It is usually mild."),
        ),
    ),
    ("troubleshooting.yaml", replies("HELLO there", "It costs $100."), replies("Hi there", "It costs $100")),
    ("performance.yaml", replies("say aaa: word, pattern, word"), replies("bbb")),
    (
        "when_conditions.yaml",
        conversation(turn(call("search_products", {"query": "Gaming Laptop"}), reply="Two laptops found")),
        conversation(turn(call("search_products", {"query": "shoes"}), reply="Two laptops found")),
    ),
]


@pytest.mark.parametrize(("name", "good", "bad"), CASES, ids=[case[0] for case in CASES])
def test_snippet_passes_and_fails(name: str, good: Transcript, bad: Transcript) -> None:
    case = only_case(DATA / name, promptkit.load)
    assert case.dialect == "promptkit"
    assert evaluate_case(case, good).status is Status.PASS, [
        o.as_dict() for o in evaluate_case(case, good).outcomes
    ]
    failing = evaluate_case(case, bad)
    assert failing.status is Status.FAIL
    for outcome in failing.outcomes:
        if outcome.failure is not None:
            assert outcome.failure.message


def test_every_fixture_is_covered() -> None:
    names = {path.name for path in DATA.glob("*.yaml")} - {"performance_lookaround.yaml", "llm_judge.yaml"}
    assert names == {name for name, _, _ in CASES}


def test_lookaround_is_rejected_by_re2_whatever_the_reply() -> None:
    case = only_case(DATA / "performance_lookaround.yaml", promptkit.load)
    for reply in ("wordpatternword", "nothing"):
        (outcome,) = evaluate_case(case, replies(reply)).outcomes
        assert outcome.failure is not None
        assert outcome.failure.message.startswith("Invalid regex: (?<=word)pattern(?=word)")


def test_failure_details_follow_promptkit_shapes() -> None:
    missing = (
        evaluate_case(only_case(DATA / "content_includes_multiple.yaml", promptkit.load), replies("Paris"))
        .outcomes[0]
        .failure
    )
    assert missing is not None and missing.details == {"missing_patterns": ["France"]}
    tools = (
        evaluate_case(only_case(DATA / "tools_called.yaml", promptkit.load), conversation(turn("search_web")))
        .outcomes[0]
        .failure
    )
    assert tools is not None and tools.details == {
        "missing_tools": ["get_weather"],
        "called_tools": ["search_web"],
    }
    forbidden = (
        evaluate_case(
            only_case(DATA / "tools_not_called.yaml", promptkit.load),
            conversation(turn("get_account", "delete_account")),
        )
        .outcomes[0]
        .failure
    )
    assert forbidden is not None
    assert forbidden.details == {
        "forbidden_tools_called": ["delete_account"],
        "all_called_tools": ["get_account", "delete_account"],
    }
    args = (
        evaluate_case(
            only_case(DATA / "tool_args_regex.yaml", promptkit.load),
            conversation(turn(call("analyze_image", {"description": "text"}))),
        )
        .outcomes[0]
        .failure
    )
    assert args is not None
    (violation,) = args.details["violations"]
    assert {key: violation[key] for key in ("type", "tool", "argument", "pattern", "actual")} == {
        "type": "pattern_mismatch",
        "tool": "analyze_image",
        "argument": "description",
        "pattern": "(?i)(logo|image|picture|graphic)",
        "actual": "text",
    }
    absent = (
        evaluate_case(
            only_case(DATA / "tool_args_presence.yaml", promptkit.load),
            conversation(turn(call("get_weather", {}))),
        )
        .outcomes[0]
        .failure
    )
    assert absent is not None and absent.details["violations"][0]["type"] == "missing_argument"
    guard = (
        evaluate_case(
            only_case(DATA / "guardrail_max_length.yaml", promptkit.load), conversation(turn(guardrails=()))
        )
        .outcomes[0]
        .failure
    )
    assert guard is not None
    assert {key: guard.details[key] for key in ("expected_triggered", "actually_triggered", "guardrail")} == {
        "expected_triggered": True,
        "actually_triggered": False,
        "guardrail": "max_length",
    }


def test_values_compare_by_their_go_text() -> None:
    case = only_case(DATA / "tool_args_exact.yaml", promptkit.load)
    check = case.turns[0].assertions[0]
    assert isinstance(check, CallCheck) and isinstance(check.arguments["location"], TextMatcher)
    numbers = promptkit.load(
        {
            "apiVersion": "promptkit.altairalabs.ai/v1alpha1",
            "kind": "Scenario",
            "spec": {
                "turns": [
                    {
                        "role": "user",
                        "content": "x",
                        "assertions": [
                            {
                                "type": "tool_calls_with_args",
                                "params": {"tool_name": "t", "expected_args": {"n": 10, "ok": True}},
                            }
                        ],
                    }
                ]
            },
        },
        Path("n.yaml"),
    )[0]
    assert (
        evaluate_case(numbers, conversation(turn(call("t", {"n": "10", "ok": "true"})))).status is Status.PASS
    )
    assert (
        evaluate_case(numbers, conversation(turn(call("t", {"n": "10", "ok": "True"})))).status is Status.FAIL
    )


def test_turn_checks_read_only_their_turn() -> None:
    case = only_case(DATA / "tools_called.yaml", promptkit.load)
    two_turns = case.model_copy(
        update={"turns": (*case.turns, case.turns[0].model_copy(update={"assertions": ()}))}
    )
    called_later = conversation(turn(), turn("get_weather"))
    assert evaluate_case(two_turns, called_later).status is Status.FAIL


def test_guardrail_aliases() -> None:
    first, second = [
        t.assertions[0] for t in only_case(DATA / "guardrail_triggered.yaml", promptkit.load).turns
    ]
    assert isinstance(first, GuardrailCheck) and (first.name, first.expected) == ("banned_words", True)
    assert isinstance(second, GuardrailCheck) and (second.name, second.expected) == (None, False)


@pytest.mark.parametrize(
    ("assertion", "field", "message"),
    [
        (
            {"type": "tools_caled", "params": {"tools": ["x"]}},
            "spec.turns[0].assertions[0].type",
            "'tools_caled' is not a supported assertion type",
        ),
        (
            {"type": "tools_called", "params": {"tool": ["x"]}},
            "spec.turns[0].assertions[0].params.tool",
            "unknown key",
        ),
        (
            {"type": "tools_called", "params": {}},
            "spec.turns[0].assertions[0].params",
            "required parameter 'tools' missing",
        ),
        (
            {"type": "tool_calls_with_args", "params": {"tool_name": "t", "required_args": {"a": 1}}},
            "spec.turns[0].assertions[0].params.required_args",
            "conversation_assertions",
        ),
    ],
)
def test_load_errors(assertion: dict[str, object], field: str, message: str) -> None:
    data = {
        "apiVersion": "promptkit.altairalabs.ai/v1alpha1",
        "kind": "Scenario",
        "spec": {"turns": [{"role": "user", "content": "x", "assertions": [assertion]}]},
    }
    (error,) = promptkit.load(data, Path("s.yaml"))
    assert isinstance(error, LoadError) and error.field == field and message in error.message, str(error)


def test_error_positions_in_a_file() -> None:
    path = DATA / "tools_called.yaml"
    text = path.read_text().replace(
        "tools:\n              - get_weather", "tols:\n              - get_weather"
    )
    broken = path.parent.parent / "broken_promptkit.yaml"
    try:
        broken.write_text(text)
        (error,) = load_file(broken, promptkit.load)
    finally:
        broken.unlink()
    assert isinstance(error, LoadError)
    assert (error.line, error.column, error.hint) == (14, 13, "did you mean 'tools'?")


def test_detect() -> None:
    assert promptkit.detect(
        {"apiVersion": "promptkit.altairalabs.ai/v1alpha1", "kind": "Scenario", "spec": {}}
    )
    assert not promptkit.detect({"apiVersion": "v1", "kind": "Pod"})
    assert not promptkit.detect({"kind": "Arena", "spec": {}})


def test_when_skips_an_assertion_whose_condition_does_not_hold() -> None:
    case = only_case(DATA / "when_conditions.yaml", promptkit.load)
    first = case.turns[0].assertions[0]
    assert first.when is not None and first.when.tool_called == "search_products"
    assert case.assertions[0].pass_threshold == 0.5
    evaluation = evaluate_case(case, conversation(turn(reply="Which brand?")))
    assert evaluation.status is Status.SKIP
    reasons = [outcome.reason for outcome in evaluation.outcomes]
    assert reasons == [
        'skipped: when: tool "search_products" was not called',
        'skipped: when: no called tool matches "^search_"',
        "skipped: when: no tool was called",
        "skipped: when: only 0 tool call(s), needs 3",
    ]


def test_when_reads_the_calls_of_the_assertions_scope() -> None:
    case = only_case(DATA / "when_conditions.yaml", promptkit.load)
    searched_in_turn_two = conversation(turn(reply="Which brand?"), turn(call("search_products", {"q": 1})))
    two_turns = case.model_copy(
        update={"turns": (*case.turns, case.turns[0].model_copy(update={"assertions": ()}))}
    )
    outcomes = evaluate_case(two_turns, searched_in_turn_two).outcomes
    assert [o.status for o in outcomes[:3]] == [Status.SKIP] * 3  # turn 1 made no call
    long_session = conversation(turn("search_products", "compare"), turn("add_to_cart"))
    (conversation_level,) = evaluate_case(case, long_session).outcomes[3:]
    # three calls in the conversation: it applies, and there was no checkout
    assert conversation_level.status is Status.FAIL


@pytest.mark.parametrize(
    ("when", "field", "message"),
    [
        ({"tool_called_pattern": "(?<=x)y"}, "when.tool_called_pattern", "invalid perl operator"),
        ({"tool_caled": "y"}, "when.tool_caled", "unknown key"),
        ({"min_tool_calls": -1}, "when.min_tool_calls", "at least 0"),
        ({"any_tool_called": "yes"}, "when.any_tool_called", "true or false"),
    ],
)
def test_bad_conditions_are_load_errors(when: dict[str, object], field: str, message: str) -> None:
    data = {
        "apiVersion": "promptkit.altairalabs.ai/v1alpha1",
        "kind": "Scenario",
        "spec": {
            "turns": [
                {
                    "role": "user",
                    "content": "x",
                    "assertions": [{"type": "tools_called", "params": {"tools": ["x"]}, "when": when}],
                }
            ]
        },
    }
    (error,) = promptkit.load(data, Path("s.yaml"))
    assert isinstance(error, LoadError), error
    assert error.field == f"spec.turns[0].assertions[0].{field}" and message in error.message, str(error)


def test_pass_threshold_outside_zero_to_one_is_a_load_error() -> None:
    data = {
        "apiVersion": "promptkit.altairalabs.ai/v1alpha1",
        "kind": "Scenario",
        "spec": {
            "turns": [{"role": "user", "content": "x"}],
            "conversation_assertions": [
                {"type": "tools_called", "params": {"tools": ["x"]}, "pass_threshold": 1.5}
            ],
        },
    }
    (error,) = promptkit.load(data, Path("s.yaml"))
    assert isinstance(error, LoadError) and "between 0 and 1" in error.message


def test_llm_judge_assertions_load_and_are_judged() -> None:
    case = only_case(DATA / "llm_judge.yaml", promptkit.load)
    (turn_one,) = case.turns
    plain, wrapped = turn_one.assertions
    assert isinstance(plain, JudgeCheck) and isinstance(wrapped, JudgeCheck)
    assert (plain.criteria, plain.threshold, plain.label) == (
        "Response is empathetic\nRubric: 1 = cold, 5 = warm", None, "judged empathetic"
    )
    assert (wrapped.criteria, wrapped.threshold) == ("Response offers a refund", 0.7)
    (session,) = case.assertions
    assert isinstance(session, JudgeCheck) and session.criteria == "The agent stays polite throughout"

    judge = ScriptedJudge(lambda item, answer: "refund" in answer.lower())
    warm = evaluate_case(case, replies("So sorry! I have issued a refund."), judge=judge)
    assert warm.status is Status.PASS
    cold = evaluate_case(case, replies("Not my problem."), judge=judge)
    assert cold.status is Status.FAIL


def test_an_assertion_wrapper_around_another_eval_is_a_load_error(tmp_path: Path) -> None:
    path = tmp_path / "toxicity.yaml"
    path.write_text(
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Scenario\nspec:\n  turns:\n"
        "    - {role: user, content: hi, assertions: [{type: assertion,\n"
        "       params: {eval_type: text_toxicity, eval_params: {}}}]}\n"
    )
    (error,) = load_file(path, promptkit.load)
    assert isinstance(error, LoadError)
    assert (error.field, error.message) == (
        "spec.turns[0].assertions[0].params.eval_type", "'text_toxicity' is not a supported eval_type"
    )
