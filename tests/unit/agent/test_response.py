"""Checks on the answer: text, regex flavors, JSONPath, field match, schema, status, latency, guardrails."""

from __future__ import annotations

import json

import pytest
from tests.unit.agent.builders import case, check, conversation, evaluate_case, run, turn

from toolproof.model.result import Status
from toolproof.model.scenario import (
    AgentTurn,
    ContainsMatcher,
    ExactMatcher,
    FieldCheck,
    GuardrailCheck,
    JsonPathCheck,
    LatencyCheck,
    RegexCheck,
    SchemaCheck,
    StatusCheck,
    TextCheck,
)
from toolproof.model.transcript import GuardrailEvent, Transcript


@pytest.mark.parametrize(
    ("op", "value", "reply", "passes"),
    [
        ("contains", "refund processed", "Your REFUND PROCESSED today.", True),
        ("contains", "refund processed", "refund pending", False),
        ("not_contains", "internal error", "All good", True),
        ("not_contains", "internal error", "An Internal Error happened", False),
        ("starts_with", "hello", "Hello there", True),
        ("starts_with", "hello", " Hello there", False),  # no trimming
        ("ends_with", "thank you", "… Thank you", True),
        ("ends_with", "thank you", "Thank you!", False),
        ("equals", "success", "SUCCESS", True),
        ("equals", "success", "success\n", False),  # a trailing newline is not trimmed
    ],
)
def test_literal_checks_are_case_insensitive_and_untrimmed(
    op: str, value: str, reply: str, passes: bool
) -> None:
    outcome = check(TextCheck(op=op, values=(value,)), run(reply=reply))  # type: ignore[arg-type]
    assert outcome.passed is passes
    if not passes:
        assert outcome.failure is not None
        assert outcome.failure.expected == [value] and outcome.failure.actual == reply


def test_contains_lists_missing_patterns() -> None:
    failed = check(TextCheck(op="contains", values=("Paris", "France")), run(reply="paris is lovely")).failure
    assert failed is not None and failed.details == {"missing_patterns": ["France"]}


def test_mcplab_regex_is_javascript_with_the_i_flag() -> None:
    mcplab = RegexCheck(
        pattern=r"refund\s+(processed|completed)", flavor="js", ignore_case=True, strip_inline_flags=True
    )
    assert check(mcplab, run(reply="Refund  Completed.")).passed
    assert not check(mcplab, run(reply="refund pending")).passed
    flagged = mcplab.model_copy(update={"pattern": r"(?i)\d{3}$"})
    assert check(flagged, run(reply="code 123")).passed
    assert not check(flagged, run(reply="code 123\n")).passed  # $ is the very end in JavaScript


def test_invalid_regex_fails_with_its_pattern() -> None:
    bad = check(RegexCheck(pattern="(?P<id>x)", flavor="js"), run(reply="x")).failure
    assert bad is not None and bad.message.startswith("Invalid regex: (?P<id>x)")
    lookaround = check(RegexCheck(pattern="(?=x)x", flavor="re2"), run(reply="x")).failure
    assert lookaround is not None and lookaround.message.startswith("Invalid regex: (?=x)x")


def test_should_match_false() -> None:
    clean = RegexCheck(pattern="error|exception|failed", flavor="js", should_match=False)
    assert check(clean, run(reply="Order #1234 confirmed")).passed
    assert not check(clean, run(reply="payment failed")).passed


def test_re2_flavor_supports_inline_flags() -> None:
    email = RegexCheck(pattern=r"(?i)\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Z|a-z]{2,}\b", flavor="re2")
    assert check(email, run(reply="Write to HELP@EXAMPLE.COM")).passed
    assert not check(email, run(reply="Please call us instead")).passed


@pytest.mark.parametrize(
    ("path", "mode", "equals", "reply", "passes"),
    [
        ("$.status", "exists", None, '{"status": "ok"}', True),
        ("$.status", "exists", None, '{"state": "ok"}', False),
        ("$.status", "equals", "success", '  {"status": "success"}\n', True),
        ("$.status", "equals", "success", '{"status": "failure"}', False),
        ("$.count", "equals", 5, '{"count": 5}', True),
        ("$.count", "equals", 5, '{"count": "5"}', False),  # no type coercion
        ("$.flag", "equals", True, '{"flag": 1}', False),
        ("$.data.id", "exists", None, '{"data": {"id": null}}', True),  # a null value exists
        ("$.error", "not_exists", None, '{"data": {}}', True),
        ("$.error", "not_exists", None, '{"error": null}', False),
        ("$.items[?@.price < 10].name", "equals", "pen", '{"items": [{"name": "pen", "price": 2}]}', True),
    ],
)
def test_jsonpath(path: str, mode: str, equals: object, reply: str, passes: bool) -> None:
    outcome = check(JsonPathCheck(path=path, mode=mode, equals=equals), run(reply=reply))  # type: ignore[arg-type]
    assert outcome.passed is passes


@pytest.mark.parametrize(
    ("equals", "reply", "message"),
    [
        ("5", '{"n": 5}', 'JSONPath $.n has no value equal to "5" (no type coercion); found: [5]'),
        (5, '{"n": "5"}', 'JSONPath $.n has no value equal to 5 (no type coercion); found: ["5"]'),
        (
            True,
            '{"n": "true"}',
            'JSONPath $.n has no value equal to true (no type coercion); found: ["true"]',
        ),
    ],
)
def test_jsonpath_equals_failure_shows_values_as_json(equals: object, reply: str, message: str) -> None:
    outcome = check(JsonPathCheck(path="$.n", mode="equals", equals=equals), run(reply=reply))
    assert outcome.failure is not None and outcome.failure.message == message
    assert outcome.label == f"jsonpath $.n equals {json.dumps(equals)}"


def test_field_mismatch_shows_values_as_json() -> None:
    mismatch = check(FieldCheck(field="n", expected=ExactMatcher(value=5)), run(reply='{"n": "5"}')).failure
    assert mismatch is not None and mismatch.message == 'n = "5" is not 5'


def test_jsonpath_on_text_that_is_not_json_names_the_path() -> None:
    fenced = run(reply='```json\n{"status": "ok"}\n```')
    failed = check(JsonPathCheck(path="$.status"), fenced).failure
    assert failed is not None and failed.message.startswith(
        "JSONPath assertion failed: invalid JSON for path $.status"
    )


def test_json_checks_prefer_the_response_body() -> None:
    observed = run(reply="Your order is confirmed", body={"order": {"status": "confirmed", "item_count": 3}})
    assert check(JsonPathCheck(path="$.order.status", mode="equals", equals="confirmed"), observed).passed
    assert check(FieldCheck(field="order.item_count", expected=ExactMatcher(value=3)), observed).passed
    assert not check(FieldCheck(field="order.item_count", expected=ExactMatcher(value="3")), observed).passed


def test_field_match_with_matchers_and_negation() -> None:
    observed = run(body={"data": {"status": "ok", "message": "All success here", "items": [{"id": "a"}]}})
    assert check(FieldCheck(field="data.message", expected=ContainsMatcher(value="success")), observed).passed
    assert check(FieldCheck(field="data.items.0.id", expected=ExactMatcher(value="a")), observed).passed
    assert check(
        FieldCheck(field="data.status", expected=ExactMatcher(value="error"), negate=True), observed
    ).passed
    assert not check(
        FieldCheck(field="data.status", expected=ExactMatcher(value="ok"), negate=True), observed
    ).passed
    missing = check(FieldCheck(field="data.nope", expected=ExactMatcher(value=1)), observed).failure
    assert missing is not None and "no 'nope' at data" in missing.message


def test_json_schema_of_the_whole_response_or_a_field() -> None:
    schema = {
        "type": "array",
        "items": {
            "type": "object",
            "required": ["name", "price"],
            "properties": {"name": {"type": "string"}, "price": {"type": "number"}},
        },
    }
    good = run(body={"data": [{"name": "Headphones", "price": 89.5}]})
    bad = run(body={"data": [{"name": "Headphones", "price": "89"}]})
    assert check(SchemaCheck(json_schema=schema, field="data"), good).passed
    failed = check(SchemaCheck(json_schema=schema, field="data"), bad).failure
    assert failed is not None and "$[0].price" in failed.message
    whole = {"type": "object", "required": ["id", "status"]}
    assert check(SchemaCheck(json_schema=whole), run(reply='{"id": "1", "status": "active"}')).passed
    assert not check(SchemaCheck(json_schema=whole), run(reply='{"id": "1"}')).passed


def test_status_and_latency_over_every_turn() -> None:
    observed = conversation(turn(http_status=200, duration_ms=800), turn(http_status=500, duration_ms=4200))
    assert check(StatusCheck(expected=200), run(http_status=200)).passed
    failed = check(StatusCheck(expected=200), observed).failure
    assert failed is not None and failed.message == "HTTP status was 500 (turn 2), expected 200"
    assert check(LatencyCheck(max_ms=5000), observed).passed
    assert not check(LatencyCheck(max_ms=3000), observed).passed


def test_turn_level_status_and_latency_name_their_turn() -> None:
    observed = conversation(
        turn(http_status=200, duration_ms=100), turn(http_status=500, duration_ms=200), turn(duration_ms=300)
    )
    third = AgentTurn(user="c", assertions=(LatencyCheck(max_ms=10),))
    second = AgentTurn(user="b", assertions=(StatusCheck(expected=200),))
    outcomes = evaluate_case(case(turns=(AgentTurn(user="a"), second, third)), observed).outcomes
    messages = [outcome.failure.message for outcome in outcomes if outcome.failure is not None]
    assert messages == [
        "HTTP status was 500 (turn 2), expected 200",
        "response took 300 ms (turn 3), limit 10 ms",
    ]


def test_checks_on_the_reply_of_a_run_that_recorded_none_are_not_evaluated() -> None:
    observed = Transcript(turns=(turn("read_file"),), no_reply=True)
    for reply_check in (
        TextCheck(op="contains", values=("x",)),
        RegexCheck(pattern="x"),
        JsonPathCheck(path="$.a"),
        SchemaCheck(json_schema={"type": "object"}),
    ):
        outcome = check(reply_check, observed)
        assert outcome.status is Status.SKIP
        assert outcome.reason == "not evaluated: the run recorded no reply, only tool calls"
    assert check(TextCheck(op="equals", values=("",)), run()).passed  # an empty reply is still a reply


def test_status_and_latency_without_data_are_not_evaluated() -> None:
    for missing in (StatusCheck(expected=200), LatencyCheck(max_ms=10)):
        outcome = check(missing, run())
        assert outcome.status is Status.SKIP and outcome.reason is not None
        assert outcome.reason.startswith("not evaluated")


def test_guardrails() -> None:
    caught = run(
        guardrails=(
            GuardrailEvent(name="banned_words", message="definitely"),
            GuardrailEvent(name="max_length", triggered=False),
        )
    )
    assert check(GuardrailCheck(name="banned_words"), caught).passed
    failed = check(GuardrailCheck(name="max_length"), caught).failure
    assert failed is not None and failed.details["actually_triggered"] is False
    assert not check(GuardrailCheck(expected=False), caught).passed
    assert check(GuardrailCheck(expected=False), run(guardrails=())).passed  # guardrails ran, none triggered


@pytest.mark.parametrize("expected", [True, False])
def test_guardrails_without_data_are_not_evaluated(expected: bool) -> None:
    outcome = check(GuardrailCheck(name="banned_words", expected=expected), run())
    assert outcome.status is Status.SKIP
    assert outcome.reason == "not evaluated: the run recorded no guardrail information"
