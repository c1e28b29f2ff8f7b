"""JSON Schema validation: violations located by path, and schema patterns that run with a time bound."""

from __future__ import annotations

import time

import pytest

from toolproof.core.jsregex import REGEX_TIMEOUT_S
from toolproof.core.schemas import schema_error, schema_violation

EVIL = "^(a|a)*$"  # backtracks over every split of "aaaa...b", in `re` and `regex` alike
SLOW = "a" * 40 + "b"


def test_a_violation_names_its_path() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert schema_violation(schema, {"n": 1}) is None
    assert schema_violation(schema, {"n": "x"}) == "at $.n: 'x' is not of type 'integer'"


def test_an_invalid_schema_is_described() -> None:
    assert schema_error({"type": "nothing"}) is not None
    problem = schema_violation({"type": "nothing"}, 1) or ""
    assert problem.startswith("the schema is not a valid JSON Schema")


def test_patterns_still_match_as_before() -> None:
    schema = {
        "type": "object",
        "properties": {"id": {"type": "string", "pattern": "^id-\\d+$"}},
        "patternProperties": {"^x-": {"type": "integer"}},
        "additionalProperties": False,
    }
    assert schema_violation(schema, {"id": "id-7", "x-count": 3}) is None
    assert schema_violation(schema, {"id": "nope"}) == "at $.id: 'nope' does not match '^id-\\\\d+$'"
    assert schema_violation(schema, {"x-count": "3"}) == "at $['x-count']: '3' is not of type 'integer'"
    assert "'other' unexpected" in (schema_violation(schema, {"other": 1}) or "")


@pytest.mark.serial  # bounds a duration: run alone, after the parallel part
@pytest.mark.parametrize(
    ("schema", "value"),
    [
        ({"type": "string", "pattern": EVIL}, SLOW),
        ({"type": "object", "patternProperties": {EVIL: {}}}, {SLOW: 1}),
        ({"type": "object", "patternProperties": {EVIL: {}}, "additionalProperties": False}, {SLOW: 1}),
        ({"type": "object", "patternProperties": {EVIL: {}}, "unevaluatedProperties": False}, {SLOW: 1}),
        ({"allOf": [{"patternProperties": {EVIL: {}}}], "unevaluatedProperties": {"type": "string"}},
         {"x": {SLOW: 1}, SLOW: "y"}),
    ],
)
def test_a_pattern_that_backtracks_forever_is_stopped(schema: dict[str, object], value: object) -> None:
    started = time.monotonic()
    problem = schema_violation(schema, value)
    assert time.monotonic() - started < REGEX_TIMEOUT_S * 10  # unbounded, this would take hours
    assert problem is not None and f"took more than {REGEX_TIMEOUT_S:g}s" in problem


def test_unevaluated_properties_with_patterns_still_validate() -> None:
    schema = {"type": "object", "patternProperties": {"^x-": {}}, "unevaluatedProperties": False}
    assert schema_violation(schema, {"x-a": 1}) is None
    assert "'other' was unexpected" in (schema_violation(schema, {"x-a": 1, "other": 2}) or "")
