"""structuredContent expectations (`structured`, `structured_schema`) and the automatic outputSchema check."""

from __future__ import annotations

from typing import Any

import pytest

from toolproof.check.blocks import check_block
from toolproof.check.expect import check_expect
from toolproof.check.output_schema import check_output_schema
from toolproof.model.observation import Observation
from toolproof.model.result import Failure, FailureKind
from toolproof.model.server_case import AssertBlock, Expect

WEATHER = {"city": "Oslo", "temperature": 7.0, "tags": ["rain", "tomorrow"], "wind": {"speed": 12}}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"temperature": {"type": "number"}, "city": {"type": "string"}},
    "required": ["temperature", "city"],
}


def observed(structured: Any = WEATHER, *, present: bool = True, **fields: Any) -> Observation:
    result = {"content": [], "structuredContent": structured} if present else {"content": []}
    return Observation(structured=structured if present else None, result=result, **fields)


def check(expect: dict[str, Any], obs: Observation) -> Failure | None:
    return check_expect(Expect.model_validate(expect), obs)


def failed(expect: dict[str, Any], obs: Observation) -> Failure:
    failure = check(expect, obs)
    assert failure is not None
    return failure


@pytest.mark.parametrize(
    "paths",
    [
        {"$.city": "Oslo"},
        {"$.temperature": 7},  # 7 == 7.0 as JSON numbers
        {"$.tags": ["rain", "tomorrow"], "$.tags[1]": "tomorrow"},
        {"$.wind": {"speed": 12}, "$..speed": 12},
        {"$.tags[*]": ["rain", "tomorrow"]},  # several nodes compare as the list of their values
        {"$.tags[?@ == 'rain']": "rain"},
        {"$": WEATHER},
    ],
)
def test_structured_paths_that_hold(paths: dict[str, Any]) -> None:
    assert check({"structured": paths}, observed()) is None


def test_structured_compares_without_coercion() -> None:
    failure = failed({"structured": {"$.temperature": "7"}}, observed())
    assert failure.kind is FailureKind.EXPECTATION
    assert failure.check == "structured"
    assert failure.message == 'structured: $.temperature: expected "7", got 7.0 (JSON equality, no coercion)'
    assert (failure.expected, failure.actual, failure.details) == ("7", 7.0, {"path": "$.temperature"})


def test_structured_reports_the_first_failing_path_in_written_order() -> None:
    failure = failed({"structured": {"$.city": "Oslo", "$.tags[0]": "snow", "$.city2": 1}}, observed())
    assert failure.details == {"path": "$.tags[0]"}


def test_structured_path_that_selects_nothing() -> None:
    failure = failed({"structured": {"$.humidity": 80}}, observed({"city": "Oslo"}))
    assert failure.message == 'structured: $.humidity selects nothing in structuredContent {"city":"Oslo"}'


def test_structured_without_structured_content() -> None:
    failure = failed({"structured": {"$.city": "Oslo"}}, observed(present=False, text="Oslo: rain"))
    assert failure.message == 'structured: the result has no structuredContent; text: "Oslo: rain"'


def test_structured_null_is_present() -> None:
    assert check({"structured": {"$": None}}, observed(None)) is None


def test_structured_schema() -> None:
    assert check({"structured_schema": SCHEMA}, observed()) is None
    failure = failed({"structured_schema": SCHEMA}, observed({"city": "Oslo", "temperature": "cold"}))
    assert failure.check == "structured_schema"
    assert failure.message.startswith(
        "structured_schema: structuredContent does not match the schema: at $.temperature: 'cold' is not of "
        "type 'number'; structuredContent: "
    )
    missing = failed({"structured_schema": SCHEMA}, observed(present=False))
    assert "the result has no structuredContent" in missing.message


def test_structured_checks_come_after_mcp_assert_checks() -> None:
    failure = failed({"contains": ["snow"], "structured": {"$.city": "Bergen"}}, observed(text="rain"))
    assert failure.check == "contains"


def declared(schema: Any = SCHEMA) -> dict[str, Any]:
    return {"name": "weather", "inputSchema": {"type": "object"}, "outputSchema": schema}


def test_output_schema_holds() -> None:
    assert check_output_schema(observed(tool=declared())) is None


def test_output_schema_is_not_checked_without_a_declaration_or_schema() -> None:
    assert check_output_schema(observed({"temperature": "x"})) is None
    assert check_output_schema(observed({"temperature": "x"}, tool={"name": "weather"})) is None


def test_output_schema_exempts_error_results() -> None:
    assert check_output_schema(observed(present=False, is_error=True, tool=declared())) is None


def test_output_schema_violation_is_a_protocol_failure_with_its_path() -> None:
    obs = observed({"city": "Oslo", "temperature": "hot"}, tool=declared())
    failure = check_output_schema(obs)
    assert failure is not None
    assert failure.kind is FailureKind.PROTOCOL
    assert failure.check == "output_schema"
    assert failure.message == (
        "output_schema: tool 'weather' returned structuredContent that breaks its own outputSchema at "
        "$.temperature: 'hot' is not of type 'number'; structuredContent: "
        '{"city":"Oslo","temperature":"hot"}'
    )
    assert failure.details == {"tool": "weather"}


def test_output_schema_requires_structured_content() -> None:
    failure = check_output_schema(observed(present=False, text="7 degrees", tool=declared()))
    assert failure is not None and failure.kind is FailureKind.PROTOCOL
    assert failure.message == (
        "output_schema: tool 'weather' declares an outputSchema but its result has no structuredContent; "
        'text: "7 degrees"'
    )


def test_output_schema_that_is_not_a_schema() -> None:
    failure = check_output_schema(observed(tool=declared({"type": "no-such-type"})))
    assert failure is not None and "the schema is not a valid JSON Schema" in failure.message
    unresolved = check_output_schema(observed(tool=declared({"$ref": "https://example.com/s.json"})))
    assert unresolved is not None and "$ref that does not resolve" in unresolved.message


def test_output_schema_fails_before_the_expectations() -> None:
    obs = observed({"temperature": "hot"}, tool=declared(), text="hot")
    block = AssertBlock(tool="weather", expect=Expect(contains=["cold"]))
    failure = check_block(block, block.expect, obs)
    assert failure is not None and failure.check == "output_schema"
