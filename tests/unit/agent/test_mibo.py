"""Mibo test cases (seed 002): every example as a fixture, with a run that passes and one that fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.unit.agent.builders import (
    ScriptedJudge,
    call,
    conversation,
    evaluate_case,
    load_file,
    node,
    only_case,
    run,
    turn,
    workflow,
)

from toolproof.load import mibo
from toolproof.load.errors import LoadError
from toolproof.model.result import Status
from toolproof.model.scenario import (
    AgentCase,
    CallCheck,
    DateMatcher,
    JudgeCheck,
    OneOfMatcher,
    SchemaMatcher,
)
from toolproof.model.transcript import Transcript

DATA = Path(__file__).parent / "data" / "mibo"

OK = "[ok]"  # the scripted judge passes an answer carrying this marker


def judge() -> ScriptedJudge:
    """Criteria pass when the answer has the marker; a constraint is violated when it says [bad]."""
    return ScriptedJudge(
        lambda item, answer: "[bad]" not in answer if item["kind"] == "constraint" else OK in answer
    )


def agent(*calls: object, reply: str = "") -> Transcript:
    return workflow(node("Webhook"), node("Agent", *calls), reply=reply)  # type: ignore[arg-type]


SEARCH_ORDER = ("search_products", "create_order")
CASES: list[tuple[str, Transcript, Transcript]] = [
    (
        "node_call_calendar.json",
        run(call("create_calendar", {"summary": "Team standup", "date": "2026-03-11T10:00:00"})),
        run(call("create_calendar", {"summary": "Team standup", "date": "2026-03-11T11:00:00"})),
    ),
    (
        "nested_tool_calls.json",
        workflow(node("AI Agent", *SEARCH_ORDER)),
        workflow(node("AI Agent", "create_order", "search_products", "delete_records")),
    ),
    (
        "matcher_exact.json",
        agent(call("set_tags", {"tags": ["urgent", "vip"]})),
        agent(call("set_tags", {"tags": ["urgent", "urgent"]})),
    ),
    (
        "matcher_contains.json",
        agent(call("search", {"query": "onboarding checklist"})),
        agent(call("search", {"query": "onboarding checklist", "api_key": "k-1"})),
    ),
    (
        "matcher_regex.json",
        agent(call("create_ticket", {"email": "jane.roe@example.org"})),
        agent(call("create_ticket", {"email": "jane.roe at example.org"})),
    ),
    (
        "matcher_date.json",
        agent(call("create_booking", {"date": "2026-03-11T09:03:00"})),
        agent(call("create_booking", {"date": "2026-03-11T09:10:00"})),
    ),
    (
        "matcher_one_of.json",
        agent(call("get_weather", {"units": "celsius"})),
        agent(call("get_weather", {"units": "imperial"})),
    ),
    (
        "matcher_any.json",
        agent(call("generate_report", {"request_id": "r-77"})),
        agent(call("generate_report", {"week": 10})),
    ),
    (
        "matcher_optional.json",
        run(call("translate", {"text": "hi"})),
        run(call("translate", {"text": "hi", "locale": "fr-FR"})),
    ),
    (
        "expression_format_concat.json",
        agent(call("create_reminder", {"message": "Reminder for 2026-03-11"})),
        agent(call("create_reminder", {"message": "Reminder for 2026-03-10"})),
    ),
    (
        "expression_json_extract.json",
        agent(call("create_order", {"sku": "ABC-123"})),
        agent(call("create_order", {"sku": "ABC-124"})),
    ),
    (
        "expression_date_sub.json",
        agent(call("fetch_sales", {"from_date": "2026-03-03"})),
        agent(call("fetch_sales", {"from_date": "2026-02-20"})),
    ),
    (
        "json_match.json",
        run(body={"data": {"order": {"status": "confirmed", "item_count": 3}}}),
        run(body={"data": {"order": {"status": "confirmed", "item_count": "3"}}}),
    ),
    (
        "json_match_not_equals.json",
        run(body={"data": {"status": "ok"}}),
        run(body={"data": {"status": "error"}}),
    ),
    (
        "json_match_matcher.json",
        run(body={"data": {"message": "a great success"}}),
        run(body={"data": {"message": "failure"}}),
    ),
    (
        "response_regex.json",
        run(reply="Order #12345 confirmed"),
        run(reply="Order #12345 confirmed, payment failed"),
    ),
    (
        "json_schema.json",
        run(body={"id": "p1", "status": "active", "data": {"items": [{"id": "a", "name": "A"}]}}),
        run(body={"id": "p1", "status": "deleted", "data": {"items": [{"id": "a", "name": "A"}]}}),
    ),
    ("http_status.json", run(http_status=200), run(http_status=502)),
    ("response_time.json", run(duration_ms=1200), run(duration_ms=5001)),
    (
        "token_limit.json",
        run(
            body={
                "text": "Here is my answer.",
                "usage": {"prompt_tokens": 120, "completion_tokens": 80, "total_tokens": 200},
            }
        ),
        run(
            body={
                "text": "Long.",
                "usage": {"prompt_tokens": 2500, "completion_tokens": 1500, "total_tokens": 4000},
            }
        ),
    ),
    (
        "semantic_quality.json",
        run(reply=f"Booked for 4 at 20:00 tomorrow {OK}"),
        run(reply=f"Booked! Plenty of free tables everywhere [bad] {OK}"),
    ),
    ("semantic_no_fabrication.json", run(reply=f"I don't have that data {OK}"), run(reply="Revenue was $4M")),
    (
        "semantic_target_node.json",
        workflow(
            node("Message a model", output={"content": {"parts": [{"text": f"RSI 61, MACD up {OK}"}]}}),
            reply=f"Summary {OK}",
        ),
        workflow(
            node("Message a model", output={"content": {"parts": [{"text": "Buy!"}]}}), reply=f"Summary {OK}"
        ),
    ),
    (
        "calendar_agent.json",
        run(
            call("create_calendar", {"date": "2026-03-12T12:00:00", "summary": "Client Lunch"}),
            reply=f"Done {OK}",
        ),
        run(
            call(
                "create_calendar", {"date": "2026-03-12T12:00:00", "summary": "Client Lunch", "api_key": "x"}
            ),
            reply=f"Done {OK}",
        ),
    ),
    (
        "multi_turn.json",
        conversation(
            turn(reply="Sorry!"),
            turn(call("lookup_order", {"order_id": "ORD-9921"})),
            turn("process_refund", reply=f"Refund started, 5 days {OK}"),
        ),
        conversation(
            turn(reply="Sorry!"),
            turn(reply="Which order?"),
            turn(call("lookup_order", {"order_id": "ORD-9921"}), "cancel_order", reply="Cancelled"),
        ),
    ),
    (
        "api_validation.json",
        run(
            http_status=200,
            duration_ms=900,
            body={"data": [{"name": "Quiet headphones", "price": 79}]},
            reply=f"Found 1 headphone {OK}",
        ),
        run(
            http_status=200,
            duration_ms=900,
            body={"data": [{"name": "Quiet headphones", "price": "79"}]},
            reply=f"Found 1 headphone {OK}",
        ),
    ),
    (
        "n8n_http_request.json",
        workflow(
            node("Scrape Website", arguments={"url": "https://mibo-ai.com/", "method": "GET"}), reply=OK
        ),
        workflow(
            node("Scrape Website", arguments={"url": "https://mibo-ai.com/", "method": "POST"}), reply=OK
        ),
    ),
    (
        "guardrail_refusal.json",
        agent(reply=f"I can't share credentials {OK}"),
        agent("get_user_credentials", reply=f"I can't share credentials {OK}"),
    ),
    ("custom_body.json", run(body={"order_status": "confirmed"}), run(body={"order_status": "rejected"})),
    (
        "depends_on_status.json",
        run(http_status=200, body={"data": {"result": "success"}}),
        run(http_status=200, body={"data": {"result": "partial"}}),
    ),
    (
        "depends_on_search.json",
        agent(call("search_hotels", {"city": "Seville"}), reply=f"One hotel: Inglaterra, 120€ {OK}"),
        agent(call("search_hotels", {"city": "Seville"}), reply="Nothing found"),
    ),
    (
        "context_variables.json",
        agent(call("create_booking", {"user_id": 12345, "tier": "premium"})),
        agent(call("create_booking", {"user_id": "12345", "tier": "premium"})),
    ),
    (
        "expected_index.json",
        agent("search_products", "create_order", "create_shipment"),
        agent("create_order", "search_products", "create_shipment"),
    ),
    (
        "call_count.json",
        workflow(node("Send Email"), node("Send Email"), node("Send Email")),
        workflow(node("Send Email"), node("Send Email")),
    ),
    (
        "context_wrapper_template.json",
        run(call("list_orders", {"user_id": "usr-abc-123"})),
        run(call("list_orders", {"user_id": "usr-abc-124"})),
    ),
    (
        "context_wrapper_expression.json",
        run(call("create_event", {"user_id": "usr-abc-123"})),
        run(call("create_event", {})),
    ),
]


@pytest.mark.parametrize(("name", "good", "bad"), CASES, ids=[case[0] for case in CASES])
def test_example_passes_and_fails(name: str, good: Transcript, bad: Transcript) -> None:
    case = only_case(DATA / name, mibo.load)
    assert case.dialect == "mibo"
    passing = evaluate_case(case, good, judge())
    assert passing.status is Status.PASS, [o.as_dict() for o in passing.outcomes]
    failing = evaluate_case(case, bad, judge())
    assert failing.status is Status.FAIL, [o.as_dict() for o in failing.outcomes]
    for outcome in failing.outcomes:
        if outcome.failure is not None:  # every failure says what was expected and what was seen
            assert outcome.failure.message and (
                outcome.failure.expected is not None or outcome.failure.actual is not None
            )


def test_every_fixture_is_covered() -> None:
    assert {path.name for path in DATA.glob("*.json")} == {name for name, _, _ in CASES}


def test_nested_failures_name_each_tool_call() -> None:
    case = only_case(DATA / "nested_tool_calls.json", mibo.load)
    (outcome,) = evaluate_case(case, workflow(node("Other"))).outcomes
    assert outcome.failure is not None
    assert [item["message"] for item in outcome.failure.details["nested"]] == ["parent node not executed"] * 3


def test_failed_dependency_skips_and_is_not_counted() -> None:
    case = only_case(DATA / "depends_on_status.json", mibo.load)
    outcomes = evaluate_case(case, run(http_status=503, body={"data": {"result": "success"}})).outcomes
    assert [o.status for o in outcomes] == [Status.FAIL, Status.SKIP]
    search = only_case(DATA / "depends_on_search.json", mibo.load)
    skipped = evaluate_case(search, agent(reply="no search"), judge())
    assert [o.status for o in skipped.outcomes] == [Status.FAIL, Status.SKIP, Status.SKIP]
    assert skipped.judge_requests == 0


def test_context_is_read_beside_or_around_the_case() -> None:
    beside = only_case(DATA / "expression_json_extract.json", mibo.load)
    around = only_case(DATA / "context_wrapper_expression.json", mibo.load)
    assert beside.context == {"ORDER_JSON": '{"sku": "ABC-123", "qty": 1}'}
    assert around.context == {"USER_ID": "usr-abc-123", "timezone": "America/New_York"}
    assert around.name == "Event is created for the context's user"


def test_mapping_details() -> None:
    date = only_case(DATA / "matcher_date.json", mibo.load)
    (outer,) = date.assertions
    assert isinstance(outer, CallCheck) and outer.level == "auto"
    (inner,) = outer.calls
    assert inner.level == "tool" and isinstance(inner.arguments["date"], DateMatcher)
    assert inner.arguments["date"].tolerance_minutes == 5
    units = only_case(DATA / "matcher_one_of.json", mibo.load).assertions[0]
    assert isinstance(units, CallCheck)
    one_of = units.calls[0].arguments["units"]
    assert isinstance(one_of, OneOfMatcher) and all(isinstance(v, SchemaMatcher) for v in one_of.variants)
    semantic = only_case(DATA / "api_validation.json", mibo.load).assertions[-1]
    assert isinstance(semantic, JudgeCheck) and semantic.grounding and semantic.threshold == 0.9
    default = only_case(DATA / "multi_turn.json", mibo.load).assertions[-1]
    assert isinstance(default, JudgeCheck) and default.threshold == 0.8
    count = only_case(DATA / "call_count.json", mibo.load).assertions[0]
    assert isinstance(count, CallCheck) and (count.condition, count.count) == ("count", 3)
    body = only_case(DATA / "custom_body.json", mibo.load)
    assert body.custom_body == {"action": "process_order", "order_id": "ORD-1001", "amount": 109.97}
    assert body.turns == ()


def _errors(data: dict[str, object]) -> list[LoadError]:
    found = mibo.load(data, Path("case.json"))
    assert all(isinstance(item, LoadError) for item in found), found
    return [item for item in found if isinstance(item, LoadError)]


@pytest.mark.parametrize(
    ("assertion", "field", "message"),
    [
        (
            {"target": "node_cal", "expected_name": "x"},
            "assertions.procedural[0].target",
            "'node_cal' is not one of",
        ),
        (
            {"target": "node_call", "condition": "MUST", "expected_name": "x"},
            "assertions.procedural[0].condition",
            "'MUST' is not one of",
        ),
        (
            {"target": "node_call", "condition": "CALL_COUNT", "expected_name": "x"},
            "assertions.procedural[0]",
            "CALL_COUNT needs expected_count",
        ),
        (
            {"target": "node_call", "expected_name": "x", "expected_argument": {}},
            "assertions.procedural[0].expected_argument",
            "unknown key",
        ),
        (
            {"target": "node_call", "expected_name": "x", "expected_arguments": {"a": {"matcher": "fuzzy"}}},
            "assertions.procedural[0].expected_arguments.a.matcher",
            "'fuzzy' is not one of",
        ),
        ({"target": "token_limit"}, "assertions.procedural[0]", "at least one"),
        (
            {"target": "json_match", "field": "a", "expected_value": 1, "condition": "GT"},
            "assertions.procedural[0].condition",
            "'GT' is not one of",
        ),
        (
            {"target": "http_status", "expected_status": 200, "depends_on": "nope"},
            "assertions.procedural[0]",
            "depends on unknown id 'nope'",
        ),
    ],
)
def test_load_errors(assertion: dict[str, object], field: str, message: str) -> None:
    (error,) = _errors({"scenario": "s", "input_utterance": "u", "assertions": {"procedural": [assertion]}})
    assert error.field == field and message in error.message, str(error)


def test_cycles_are_load_errors() -> None:
    procedural = [
        {"target": "http_status", "expected_status": 200, "id": "a", "depends_on": "b"},
        {"target": "response_time", "max_ms": 5, "id": "b", "depends_on": ["a"]},
    ]
    errors = _errors({"scenario": "s", "input_utterance": "u", "assertions": {"procedural": procedural}})
    assert any("dependency cycle" in error.message for error in errors)


def test_errors_in_a_json_file_have_positions(tmp_path: Path) -> None:
    path = tmp_path / "case.json"
    path.write_text(
        '{\n  "scenario": "s",\n  "input_utterance": "u",\n  "assertions": {\n'
        '    "procedural": [\n      {"target": "http_status", "expected_statu": 200}\n    ]\n  }\n}\n'
    )
    (error,) = load_file(path, mibo.load)
    assert isinstance(error, LoadError)
    assert (error.line, error.field, error.hint) == (
        6,
        "assertions.procedural[0].expected_statu",
        "did you mean 'expected_status'?",
    )


def test_detect() -> None:
    assert mibo.detect({"scenario": "s", "input_utterance": "u"})
    assert mibo.detect({"context": {}, "content": {"scenario": "s", "assertions": {}}})
    assert not mibo.detect({"scenario": "s"})
    assert not mibo.detect({"name": "x", "expect": []})


def test_case_loads_whole() -> None:
    case = only_case(DATA / "multi_turn.json", mibo.load)
    assert isinstance(case, AgentCase)
    assert [t.user for t in case.turns] == ["You charged me twice", "It was order ORD-9921", "Yes, refund it"]
    assert [len(t.assertions) for t in case.turns] == [0, 1, 0]


@pytest.mark.parametrize(
    ("matcher", "field", "message"),
    [
        (
            {"matcher": "date", "expression": "DATE_ADD(TODAY, 1, 'fortnight')"},
            "expression",
            "unknown unit 'fortnight'",
        ),
        ({"matcher": "exact", "expression": "USER_IDD"}, "expression", "unknown name USER_IDD"),
        ({"matcher": "contains", "expression": "CONCATT('a')"}, "expression", "unknown function CONCATT"),
        ({"matcher": "date", "expression": "AT_TIME(TODAY, '09:00'"}, "expression", "unexpected end"),
        ({"matcher": "date", "value": "next tuesday"}, "value", "is not an ISO 8601 date or date-time"),
    ],
)
def test_bad_expressions_are_load_errors_where_they_stand(
    tmp_path: Path, matcher: dict[str, object], field: str, message: str
) -> None:
    call = {"target": "node_call", "expected_name": "book", "expected_arguments": {"when": matcher}}
    case = {"scenario": "s", "context": {"USER_ID": 7}, "input_utterance": "u"}
    path = tmp_path / "case.json"
    path.write_text(json.dumps({**case, "assertions": {"procedural": [call]}}, indent=1))
    (error,) = load_file(path, mibo.load)
    assert isinstance(error, LoadError), error
    assert error.file == path and error.field == f"assertions.procedural[0].expected_arguments.when.{field}"
    assert message in error.message
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if f'"{field}"' in text)
    assert error.line == line


def test_expressions_may_name_context_variables() -> None:
    matcher = {"matcher": "exact", "expression": "CONCAT('order-', ORDER_ID)"}
    call = {"target": "node_call", "expected_name": "t", "expected_arguments": {"id": matcher}}
    document = {
        "context": {"ORDER_ID": 7},
        "content": {"scenario": "s", "assertions": {"procedural": [call]}},
    }
    (case,) = mibo.load(document, Path("case.json"))
    assert isinstance(case, AgentCase), case
