"""The expression language: every function of seed 002, context variables, and refusals."""

from __future__ import annotations

import contextlib
from datetime import date, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.unit.agent.builders import CLOCK, ZONE, scope

from toolproof.core.expressions import (
    ExpressionError,
    check_expression,
    evaluate,
    parse,
    parse_temporal,
    shadowed,
)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("TODAY()", date(2026, 3, 10)),
        ("TODAY", date(2026, 3, 10)),
        ("NOW()", datetime(2026, 3, 10, 9, 0, tzinfo=ZONE)),
        ("NOW", datetime(2026, 3, 10, 9, 0, tzinfo=ZONE)),
        ("DATE_ADD(TODAY(), 3, 'days')", date(2026, 3, 13)),
        ("DATE_SUB(TODAY(), 1, 'week')", date(2026, 3, 3)),
        ("DATE_ADD(TODAY, 2, 'hours')", datetime(2026, 3, 10, 2, 0, tzinfo=ZONE)),
        ("DATE_ADD(NOW, 30, 'minutes')", datetime(2026, 3, 10, 9, 30, tzinfo=ZONE)),
        ("AT_TIME(TODAY(), '14:30')", datetime(2026, 3, 10, 14, 30, tzinfo=ZONE)),
        ("AT_TIME(TODAY(), '09:00:05')", datetime(2026, 3, 10, 9, 0, 5, tzinfo=ZONE)),
        ("AT_TIME(TODAY(), '3:30 PM')", datetime(2026, 3, 10, 15, 30, tzinfo=ZONE)),
        ("AT_TIME(TODAY(), '12:15 am')", datetime(2026, 3, 10, 0, 15, tzinfo=ZONE)),
        ("AT_TIME(DATE_ADD(TODAY(), 1, 'days'), '10:00')", datetime(2026, 3, 11, 10, 0, tzinfo=ZONE)),
        ("FORMAT_DATE(TODAY(), '%Y-%m-%d')", "2026-03-10"),
        (
            "CONCAT('Reminder for ', FORMAT_DATE(DATE_ADD(TODAY, 1, 'day'), '%Y-%m-%d'))",
            "Reminder for 2026-03-11",
        ),
        ("CONCAT('order-', ORDER_ID)", "order-77"),
        ("UPPER(CITY)", "LISBON"),
        ("LOWER(EMAIL)", "ada@example.com"),
        ("JSON_EXTRACT(ORDER_JSON, 'sku')", "ABC-123"),
        ("JSON_EXTRACT(ORDER_DATA, 'items.0.sku')", "X-1"),
        ("USER_ID", 12345),
        ("'it\\'s'", "it's"),
        ('"double"', "double"),
        ("-4", -4),
    ],
)
def test_evaluates(expression: str, expected: object) -> None:
    variables = scope(
        ORDER_ID=77,
        CITY="Lisbon",
        EMAIL="Ada@Example.com",
        ORDER_JSON='{"sku": "ABC-123", "qty": 1}',
        ORDER_DATA={"items": [{"sku": "X-1"}]},
        USER_ID=12345,
    )
    assert evaluate(expression, variables) == expected


@pytest.mark.parametrize(
    ("expression", "reason"),
    [
        ("__import__('os')", "unknown function __import__"),
        ("open('x')", "unknown function open"),
        ("MISSING", "unknown name MISSING"),
        ("DATE_ADD(TODAY, 1, 'month')", "unknown unit"),
        ("AT_TIME(TODAY, '25:00')", "hour must be in 0..23"),
        ("AT_TIME(TODAY, 'noon')", "is not HH:MM"),
        ("DATE_ADD('soon', 1, 'day')", "not a date"),
        ("JSON_EXTRACT('{\"a\": 1}', 'b')", "no 'b'"),
        ("TODAY(", "unexpected end"),
        ("TODAY() + 1", "cannot read"),
        ("1; 2", "cannot read"),
    ],
)
def test_refuses(expression: str, reason: str) -> None:
    with pytest.raises(ExpressionError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        evaluate(expression, scope())


def test_builtin_wins_over_context_variable_with_a_warning() -> None:
    variables = scope(TODAY="not a date")
    assert evaluate("TODAY", variables) == date(2026, 3, 10)
    assert variables.warnings == ["the built-in TODAY hides the context variable of that name"]
    assert shadowed({"TODAY": 1, "USER": 2}) == ["TODAY"]


def test_date_math_is_in_the_evaluation_zone() -> None:
    # 23:30 UTC on 10 March is already 11 March in Tokyo
    from zoneinfo import ZoneInfo

    from toolproof.core.expressions import Clock, Scope

    tokyo = Clock(datetime(2026, 3, 10, 23, 30, tzinfo=ZoneInfo("UTC")), ZoneInfo("Asia/Tokyo"))
    assert evaluate("TODAY", Scope(tokyo)) == date(2026, 3, 11)
    assert evaluate("TODAY", Scope(CLOCK)) == date(2026, 3, 10)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-03-10", date(2026, 3, 10)),
        ("2026-03-10T10:00:00Z", datetime.fromisoformat("2026-03-10T10:00:00+00:00")),
        ("2026-03-10T10:00:00+01:00", datetime.fromisoformat("2026-03-10T10:00:00+01:00")),
        ("2026-03-10 10:00", datetime(2026, 3, 10, 10, 0, tzinfo=ZONE)),
        (1773133200, datetime.fromisoformat("2026-03-10T09:00:00+00:00")),
        (1773133200000, datetime.fromisoformat("2026-03-10T09:00:00+00:00")),
        ("next tuesday", None),
        (True, None),
        (None, None),
    ],
)
def test_parse_temporal(value: object, expected: object) -> None:
    assert parse_temporal(value, ZONE) == expected


@given(st.integers(min_value=-3000, max_value=3000), st.sampled_from(["day", "days", "week", "weeks"]))
def test_date_add_and_sub_are_inverse(count: int, unit: str) -> None:
    there = evaluate(f"DATE_ADD(TODAY, {count}, '{unit}')", scope())
    assert evaluate(f"DATE_SUB('{there.isoformat()}', {count}, '{unit}')", scope()) == date(2026, 3, 10)


@given(st.text(alphabet="abc XYZ-_'\\", max_size=10))
def test_any_input_parses_or_raises_expression_error(text: str) -> None:
    with contextlib.suppress(ExpressionError):
        parse(text)


@pytest.mark.parametrize(
    ("expression", "reason"),
    [
        ("DATE_ADD(TODAY, 1, 'fortnight')", "unknown unit 'fortnight'"),
        ("DATE_SUB(TODAY, 'two', 'days')", "the count must be a number"),
        ("DATE_ADD(TODAY, 1, UNIT)", "unknown unit 'month'"),  # a context variable is known before the run
        ("AT_TIME(TODAY, '25:00')", "hour must be in 0..23"),
        ("UPPER(CITTY)", "unknown name CITTY (context variables: CITY, UNIT)"),
        ("TOMORROW()", "unknown function TOMORROW"),
        ("DATE_ADD(TODAY, 1)", "DATE_ADD takes (date, count, unit), got 2 arguments"),
        ("CONCAT('a',", "unexpected end"),
    ],
)
def test_check_expression_finds_what_fails_whenever_it_runs(expression: str, reason: str) -> None:
    with pytest.raises(ExpressionError) as caught:
        check_expression(expression, {"CITY": "Lisbon", "UNIT": "month"})
    assert reason in caught.value.reason


@pytest.mark.parametrize(
    "expression",
    [
        "AT_TIME(DATE_ADD(TODAY, 1, 'day'), '09:00')",
        "CONCAT('Reminder for ', FORMAT_DATE(DATE_ADD(TODAY(), 1, 'day'), '%Y-%m-%d'))",
        "JSON_EXTRACT(ORDER, 'items.0.sku')",  # the data is read only when the expression runs
        "DATE_ADD(JSON_EXTRACT(ORDER, 'when'), 1, 'days')",
        "CONCAT()",
    ],
)
def test_check_expression_accepts_what_may_succeed(expression: str) -> None:
    check_expression(expression, {"ORDER": "{}"})
