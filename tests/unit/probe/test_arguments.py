"""Schema-driven arguments: every generated object is valid against the schema it came from."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolproof.probe.arguments import schema_value, tool_arguments


def assert_valid(schema: dict[str, Any], value: Any) -> None:
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
    errors = [error.message for error in validator.iter_errors(value)]
    assert errors == [], (value, errors)


def obj(properties: dict[str, Any], required: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required or list(properties), **extra}


CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("no schema properties", {"type": "object"}, {}),
    ("enum takes its first member", obj({"unit": {"type": "string", "enum": ["c", "f"]}}), {"unit": "c"}),
    (
        "examples win over enum",
        obj({"u": {"type": "string", "enum": ["a", "b"], "examples": ["b"]}}),
        {"u": "b"},
    ),
    ("default is used", obj({"n": {"type": "integer", "default": 7}}), {"n": 7}),
    ("const is used", obj({"k": {"const": "fixed"}}), {"k": "fixed"}),
    (
        "a default outside the schema is ignored",
        obj({"n": {"type": "integer", "minimum": 3, "default": 1}}),
        {"n": 3},
    ),
    ("minimum", obj({"n": {"type": "integer", "minimum": 5}}), {"n": 5}),
    ("exclusive minimum", obj({"n": {"type": "integer", "exclusiveMinimum": 5}}), {"n": 6}),
    ("maximum below one", obj({"n": {"type": "integer", "maximum": -3}}), {"n": -3}),
    ("multipleOf", obj({"n": {"type": "integer", "minimum": 1, "multipleOf": 4}}), {"n": 4}),
    ("boolean", obj({"b": {"type": "boolean"}}), {"b": True}),
    (
        "date-time format",
        obj({"at": {"type": "string", "format": "date-time"}}),
        {"at": "2024-01-01T00:00:00Z"},
    ),
    ("email format", obj({"to": {"type": "string", "format": "email"}}), {"to": "user@example.com"}),
    (
        "uuid format",
        obj({"id": {"type": "string", "format": "uuid"}}),
        {"id": "00000000-0000-4000-8000-000000000000"},
    ),
    ("a path name", obj({"path": {"type": "string"}}), {"path": "."}),
    ("a timezone name", obj({"source_timezone": {"type": "string"}}), {"source_timezone": "UTC"}),
    ("minLength pads", obj({"s": {"type": "string", "minLength": 10}}), {"s": "exampleexa"}),
    ("maxLength cuts", obj({"s": {"type": "string", "maxLength": 3}}), {"s": "exa"}),
    (
        "optional fields are left out",
        obj({"a": {"type": "string"}, "b": {"type": "string"}}, ["a"]),
        {"a": "example"},
    ),
    ("nested object", obj({"o": obj({"x": {"type": "integer"}})}), {"o": {"x": 1}}),
    (
        "array of strings",
        obj({"tags": {"type": "array", "items": {"type": "string"}}}),
        {"tags": ["example"]},
    ),
    (
        "array minItems with unique items",
        obj({"ns": {"type": "array", "items": {"type": "integer"}, "minItems": 3, "uniqueItems": True}}),
        {"ns": [1, 2, 3]},
    ),
    ("array maxItems 0", obj({"ns": {"type": "array", "maxItems": 0}}), {"ns": []}),
    (
        "$ref into $defs",
        {
            "type": "object",
            "properties": {"p": {"$ref": "#/$defs/P"}},
            "required": ["p"],
            "$defs": {"P": obj({"name": {"type": "string"}})},
        },
        {"p": {"name": "example"}},
    ),
    (
        "$ref into definitions",
        {
            "type": "object",
            "properties": {"p": {"$ref": "#/definitions/N"}},
            "required": ["p"],
            "definitions": {"N": {"type": "number", "minimum": 2.5}},
        },
        {"p": 2.5},
    ),
    ("anyOf skips null", obj({"x": {"anyOf": [{"type": "null"}, {"type": "integer"}]}}), {"x": 1}),
    ("type list prefers non-null", obj({"x": {"type": ["null", "string"]}}), {"x": "example"}),
    ("allOf merges", obj({"x": {"allOf": [{"type": "integer"}, {"minimum": 9}]}}), {"x": 9}),
]


@pytest.mark.parametrize(("label", "schema", "expected"), CASES, ids=[case[0] for case in CASES])
def test_generated_arguments(label: str, schema: dict[str, Any], expected: dict[str, Any]) -> None:
    arguments = tool_arguments(schema)
    assert arguments == expected
    assert_valid(schema, arguments)


def test_optional_fields_on_request() -> None:
    schema = obj({"a": {"type": "string"}, "b": {"type": "integer"}}, ["a"])
    assert tool_arguments(schema, include_optional=True) == {"a": "example", "b": 1}


def test_pattern_is_honoured() -> None:
    schema = obj({"code": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{2}$"}})
    arguments = tool_arguments(schema)
    assert_valid(schema, arguments)
    assert arguments == tool_arguments(schema)  # deterministic


def test_recursive_ref_stops() -> None:
    schema = {
        "$defs": {"Node": obj({"child": {"$ref": "#/$defs/Node"}})},
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/Node"}},
        "required": ["root"],
    }
    arguments = tool_arguments(schema)
    depth = 0
    node = arguments["root"]
    while node:
        node, depth = node.get("child"), depth + 1
    assert 0 < depth <= 10


def test_missing_or_broken_schemas() -> None:
    assert tool_arguments(None) == {}
    assert tool_arguments(
        {"type": "object", "properties": {"x": {"$ref": "#/nowhere"}}, "required": ["x"]}
    ) == {"x": "example"}
    assert schema_value({"type": "number", "minimum": 0.5, "exclusiveMaximum": 0.75}) == 0.5
    assert schema_value({"type": "string"}, name="url") == "https://example.com/"


SIMPLE = st.sampled_from(
    [
        {"type": "string"},
        {"type": "integer"},
        {"type": "number"},
        {"type": "boolean"},
        {"type": "null"},
        {"type": "string", "format": "ipv4"},
        {"type": "string", "minLength": 4, "maxLength": 6},
    ]
)


@st.composite
def bounded_numbers(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["integer", "number"]))
    low = draw(st.integers(-50, 50))
    width = draw(st.integers(5, 40))  # wide enough for a multiple of 2 strictly inside
    schema: dict[str, Any] = {"type": kind}
    schema[draw(st.sampled_from(["minimum", "exclusiveMinimum"]))] = low
    schema[draw(st.sampled_from(["maximum", "exclusiveMaximum"]))] = low + width
    if draw(st.booleans()):
        schema["multipleOf"] = draw(st.sampled_from([1, 2, 0.5] if kind == "number" else [1, 2]))
    return schema


SCHEMAS = st.recursive(
    SIMPLE | bounded_numbers(),
    lambda inner: st.one_of(
        st.dictionaries(st.from_regex(r"[a-z]{1,8}", fullmatch=True), inner, max_size=4).map(
            lambda props: {"type": "object", "properties": props, "required": sorted(props)}
        ),
        st.builds(
            lambda item, low: {"type": "array", "items": item, "minItems": low},
            inner,
            st.integers(0, 3),
        ),
    ),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None)
@given(SCHEMAS)
def test_every_generated_value_is_valid(schema: dict[str, Any]) -> None:
    value = schema_value(schema)
    assert_valid(schema, value)
