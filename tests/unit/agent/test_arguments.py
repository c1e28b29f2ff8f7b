"""Argument matchers: exact, contains, regex, date, one_of, any, schema, text; optional; whole-call rules."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.unit.agent.builders import scope

from toolproof.check.arguments import argument_violations, deep_equal, match
from toolproof.model.scenario import (
    AnyMatcher,
    CallCheck,
    ContainsMatcher,
    DateMatcher,
    ExactMatcher,
    OneOfMatcher,
    RegexMatcher,
    SchemaMatcher,
    TextMatcher,
)

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text("ab*", max_size=3),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text("xyz", max_size=2), inner, max_size=3)
    ),
    max_leaves=12,
)


def _shuffled_lists(value: Any, data: st.DataObject) -> Any:
    if isinstance(value, list):
        items = [_shuffled_lists(item, data) for item in value]
        return data.draw(st.permutations(items))
    if isinstance(value, dict):
        return {key: _shuffled_lists(item, data) for key, item in value.items()}
    return value


@given(JSON, st.data())
def test_exact_ignores_list_order_at_every_depth(value: Any, data: st.DataObject) -> None:
    assert deep_equal(value, _shuffled_lists(value, data))


@given(st.lists(st.integers(0, 3), min_size=1, max_size=6))
def test_exact_lists_are_multisets(items: list[int]) -> None:
    assert deep_equal(items, list(reversed(items)))
    assert not deep_equal(items, [*items, items[0]])  # duplicates count
    assert not deep_equal([*items, items[0]], items)


@given(JSON)
def test_wildcard_matches_any_present_value(value: Any) -> None:
    assert deep_equal("*", value)
    assert deep_equal({"id": "*"}, {"id": value})
    assert not deep_equal({"id": "*"}, {})


def test_exact_has_no_type_coercion() -> None:
    assert not deep_equal(3, "3")
    assert not deep_equal(True, 1)
    assert not deep_equal(1, True)
    assert deep_equal(1, 1.0)
    assert deep_equal({"tags": ["vip", "urgent"]}, {"tags": ["urgent", "vip"]})
    assert not deep_equal({"a": 1}, {"a": 1, "b": 2})


def test_wildcards_need_a_one_to_one_pairing() -> None:
    assert deep_equal(["*", "a"], ["a", "b"])
    assert not deep_equal(["a", "a"], ["a", "*"])


def test_exact_with_a_date_expression_compares_instants() -> None:
    noon = ExactMatcher(expression="AT_TIME(DATE_ADD(TODAY(), 2, 'days'), '12:00')")
    assert match(noon, "2026-03-12T12:00:00", scope()) is None
    assert match(noon, "2026-03-12T12:00:00+00:00", scope()) is None  # Lisbon is UTC in March
    assert match(noon, "2026-03-12T11:00:00Z", scope()) is not None
    day = ExactMatcher(expression="TODAY()")
    assert match(day, "2026-03-10", scope()) is None
    assert match(day, "2026-03-10T09:00:00", scope()) is not None


def test_contains_casts_both_sides_to_text() -> None:
    assert match(ContainsMatcher(value="onboarding"), "docs about onboarding steps", scope()) is None
    assert match(ContainsMatcher(value="Onboarding"), "docs about onboarding steps", scope()) is not None
    assert match(ContainsMatcher(value=12), {"id": 123}, scope()) is None
    assert match(ContainsMatcher(value='"vip"'), ["vip"], scope()) is None


def test_regex_is_an_unanchored_case_sensitive_search() -> None:
    email = RegexMatcher(pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
    assert match(email, "john.doe@example.com", scope()) is None
    assert match(email, "john.doe at example", scope()) is not None
    assert match(RegexMatcher(pattern="ORD"), "my ord-1 and ORD-2", scope()) is None
    assert match(RegexMatcher(pattern="ord-2"), "ORD-2", scope()) is not None
    bad = match(RegexMatcher(pattern="(?P<x>a)"), "a", scope())
    assert bad is not None and bad.reason.startswith("Invalid regex")


@pytest.mark.parametrize(
    ("actual", "tolerance", "passes"),
    [
        ("2026-03-11T09:00:00", 0, True),
        ("2026-03-11T09:04:00", 5, True),
        ("2026-03-11T09:06:00", 5, False),
        ("2026-03-11T09:00:00+01:00", 5, False),  # 08:00 in Lisbon
        ("2026-03-11T09:00:00Z", 0, True),
        (1773219600, 0, True),  # epoch seconds of 2026-03-11T09:00Z
        (1773219600000, 0, True),  # and milliseconds
        ("tomorrow", 5, False),
    ],
)
def test_date_with_tolerance(actual: Any, tolerance: float, passes: bool) -> None:
    matcher = DateMatcher(
        expression="AT_TIME(DATE_ADD(TODAY, 1, 'day'), '09:00')", tolerance_minutes=tolerance
    )
    assert (match(matcher, actual, scope()) is None) is passes


def test_date_only_expectation_matches_the_whole_day() -> None:
    last_week = DateMatcher(expression="DATE_SUB(TODAY, 1, 'week')")
    assert match(last_week, "2026-03-03", scope()) is None
    assert match(last_week, "2026-03-03T23:59:00", scope()) is None
    assert match(last_week, "2026-03-04T00:00:00", scope()) is not None
    wide = DateMatcher(expression="DATE_SUB(TODAY, 1, 'week')", tolerance_minutes=1440)
    assert match(wide, "2026-03-04", scope()) is None
    assert match(wide, "2026-03-05", scope()) is not None


def test_a_string_from_json_extract_is_read_as_a_date() -> None:
    matcher = DateMatcher(expression="JSON_EXTRACT(BOOKING, 'when')")
    assert match(matcher, "2026-03-10T15:00:00", scope(BOOKING='{"when": "2026-03-10"}')) is None
    assert match(matcher, "2026-03-11T15:00:00", scope(BOOKING='{"when": "2026-03-10"}')) is not None


def test_one_of_accepts_literals_matchers_and_schemas() -> None:
    units = OneOfMatcher(
        variants=(
            SchemaMatcher(json_schema={"type": "string", "pattern": "^(metric|si)$"}),
            SchemaMatcher(json_schema={"type": "string", "pattern": "^celsius$"}),
            ExactMatcher(value="kelvin"),
            RegexMatcher(pattern="^fahr"),
        )
    )
    for good in ("metric", "si", "celsius", "kelvin", "fahrenheit"):
        assert match(units, good, scope()) is None, good
    miss = match(units, "imperial", scope())
    assert miss is not None and "none of 4 variants" in miss.reason


def test_any_requires_presence_and_optional_allows_absence() -> None:
    assert match(AnyMatcher(), None, scope()) is None  # a present null counts
    assert match(AnyMatcher(), None, scope(), present=False) is not None
    assert match(ExactMatcher(value="en-US", optional=True), None, scope(), present=False) is None
    assert match(ExactMatcher(value="en-US", optional=True), None, scope()) is None
    assert match(ExactMatcher(value="en-US", optional=True), "fr-FR", scope()) is not None


def test_text_matcher_compares_go_string_forms() -> None:
    assert match(TextMatcher(value=10), "10", scope()) is None
    assert match(TextMatcher(value="true"), True, scope()) is None
    assert match(TextMatcher(value=3.0), "3", scope()) is None
    assert match(TextMatcher(value="True"), True, scope()) is not None


def test_whole_call_rules_list_every_violation() -> None:
    check = CallCheck(
        name="search",
        arguments={"query": ContainsMatcher(value="onboarding"), "limit": ExactMatcher(value=10)},
        strict=True,
        forbidden_arguments=("api_key", "password"),
        forbidden_values={"*": RegexMatcher(pattern="sk-[A-Za-z0-9]+")},
    )
    good = {"query": "onboarding steps", "limit": 10}
    assert argument_violations(check, good, scope()) == []
    bad = {"query": "pricing", "api_key": "sk-abc123", "page": 2}
    found = {(v["type"], v["argument"]) for v in argument_violations(check, bad, scope())}
    assert found == {
        ("value_mismatch", "query"),
        ("missing_argument", "limit"),
        ("unexpected_argument", "api_key"),
        ("unexpected_argument", "page"),
        ("forbidden_argument", "api_key"),
        ("forbidden_value", "api_key"),
    }
    assert argument_violations(check, "not an object", scope())[0]["type"] == "value_mismatch"


def test_violation_messages_say_expected_and_seen() -> None:
    check = CallCheck(name="get_weather", arguments={"location": RegexMatcher(pattern="^San")})
    (found,) = argument_violations(check, {"location": "SF"}, scope())
    assert found == {
        "type": "pattern_mismatch",
        "tool": "get_weather",
        "argument": "location",
        "pattern": "^San",
        "actual": "SF",
        "message": "argument 'location' = \"SF\" does not match /^San/",
    }


def test_an_exact_mismatch_shows_both_values_as_json() -> None:
    check = CallCheck(name="order", arguments={"qty": ExactMatcher(value=3)})
    (found,) = argument_violations(check, {"qty": "3"}, scope())
    assert found["message"] == "argument 'qty' = \"3\" is not 3"
