"""`assert_tools:` expectations on a tools/list declaration."""

from __future__ import annotations

from typing import Any

import pytest

from toolproof.check.tools import check_tools
from toolproof.model.result import Failure, FailureKind
from toolproof.model.server_case import ToolsExpect

TOOLS: list[dict[str, Any]] = [
    {
        "name": "forecast",
        "description": "Tomorrow's forecast for a city.",
        "inputSchema": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "units": {"enum": ["C", "F"]}},
            "required": ["city"],
        },
        "outputSchema": {"type": "object"},
        "annotations": {"readOnlyHint": True, "title": "Forecast"},
    },
    {"name": "book", "inputSchema": {"type": "object"}},
]


def check(expect: dict[str, Any], tools: list[dict[str, Any]] = TOOLS) -> Failure | None:
    return check_tools(ToolsExpect.model_validate(expect), tools)


def failed(expect: dict[str, Any]) -> Failure:
    failure = check(expect)
    assert failure is not None
    assert failure.kind is FailureKind.EXPECTATION
    return failure


@pytest.mark.parametrize(
    "expect",
    [
        {},
        {"tools": {"forecast": {}, "book": {}}},
        {"tools": {"forecast": {"input": ["city", "units"], "required": "city"}}},
        {"tools": {"forecast": {"annotations": {"readOnlyHint": True, "title": "Forecast"}}}},
        # undeclared hints have the spec's defaults
        {"tools": {"book": {"annotations": {"readOnlyHint": False, "destructiveHint": True,
                                            "idempotentHint": False, "openWorldHint": True}}}},
        {"tools": {"forecast": {"description": "(?i)^tomorrow", "output_schema": True}}},
        {"tools": {"book": {"output_schema": False}}},
        {"tools": {"forecast": {"declared": {"$.inputSchema.properties.units.enum": ["C", "F"]}}}},
        {"absent": ["delete_all"], "min_tools": 2, "max_tools": 2},
    ],
)
def test_expectations_that_hold(expect: dict[str, Any]) -> None:
    assert check(expect) is None


def test_a_tool_that_is_not_listed() -> None:
    failure = failed({"tools": {"forecast": {}, "cancel": {}}})
    assert failure.message == "assert_tools: tool 'cancel' is not listed (listed: forecast, book)"
    assert failure.check == "assert_tools.tools"


@pytest.mark.parametrize(
    ("expect", "check_name", "message"),
    [
        ({"input": ["city", "country"]}, "input",
         "tool 'forecast' has no input property country (its properties: city, units)"),
        ({"required": ["units"]}, "required", "tool 'forecast' does not require units (it requires: city)"),
        ({"annotations": {"readOnlyHint": False}}, "annotations",
         "tool 'forecast' readOnlyHint: expected false, it declares true"),
        ({"annotations": {"colour": "red"}}, "annotations",
         "tool 'forecast' has no annotation colour (its annotations: "
         '{"readOnlyHint":true,"title":"Forecast"})'),
        ({"description": "weather"}, "description",
         "tool 'forecast' description does not match \"weather\": \"Tomorrow's forecast for a city.\""),
        ({"output_schema": False}, "output_schema", "tool 'forecast' declares an outputSchema"),
        ({"declared": {"$.inputSchema.type": "array"}}, "declared",
         "tool 'forecast': $.inputSchema.type: expected \"array\", got \"object\""),
        ({"declared": {"$.title": "x"}}, "declared",
         "tool 'forecast': $.title selects nothing in its declaration"),
    ],
)
def test_each_tool_field_fails_with_its_reason(expect: dict[str, Any], check_name: str, message: str) -> None:
    failure = failed({"tools": {"forecast": expect}})
    assert failure.check == f"assert_tools.{check_name}"
    assert failure.message == f"assert_tools: {message}"
    assert failure.details["tool"] == "forecast"


def test_an_undeclared_hint_is_compared_with_its_default() -> None:
    failure = failed({"tools": {"book": {"annotations": {"destructiveHint": False}}}})
    assert failure.message == (
        "assert_tools: tool 'book' destructiveHint: expected false, it does not declare it, so the spec's "
        "default is true"
    )


def test_listing_counts_and_absence() -> None:
    assert failed({"absent": ["book"]}).message == "assert_tools: listed, but expected absent: book"
    listed = "2 listed: forecast, book"
    assert failed({"min_tools": 3}).message == f"assert_tools: expected at least 3 tools, {listed}"
    assert failed({"max_tools": 1}).message == f"assert_tools: expected at most 1 tools, {listed}"
    assert check({"min_tools": 1}, []) is not None
