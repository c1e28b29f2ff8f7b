"""Hostile inputs for one tool, derived from its input schema and a seed (pure, reproducible).

The order is fixed: whole-object cases (empty object, null arguments, each required field missing), then
per property in schema order: schema boundaries (just outside minimum/maximum, minLength/maxLength,
a near miss of each enum, a malformed value for its format), a wrong type, mcp-assert's cases for its type,
unicode edge cases for strings; then random mutations drawn from `random.Random(seed, tool)` until `runs`.
Every property not under test keeps a valid value from the argument generator. The list is cut at `runs`.
Inputs JSON cannot carry (NaN, infinities) are marked `sendable=False`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from toolproof.probe.arguments import tool_arguments

INT32_MAX = 2**31 - 1
INT32_MIN = -(2**31)


@dataclass(frozen=True)
class FuzzInput:
    """One input: what it tests (`category`), the arguments to send, and whether JSON can carry them."""

    category: str
    arguments: Any
    sendable: bool = True


STRING_CASES: tuple[tuple[str, Any], ...] = (
    ("empty string", ""),
    ("whitespace only", "   "),
    ("very long string (10KB)", "a" * 10_000),
    ("null bytes", "test\x00value"),
    ("zero-width spaces", "test\u200b\u200b\u200b"),
    ("emoji", "\U0001f4a5\U0001f525\U0001f480"),
    ("newlines", "line1\nline2\nline3"),
    ("path traversal", "../../../etc/passwd"),
    ("shell injection", "; rm -rf / #"),
    ("SQL injection", "' OR 1=1 --"),
    ("null value", None),
)
UNICODE_CASES: tuple[tuple[str, str], ...] = (
    ("right-to-left override", "abc\u202edef"),
    ("combining marks", "e\u0301\u0301\u0301"),
    ("ZWJ emoji sequence", "\U0001f468\u200d\U0001f469\u200d\U0001f467"),
    ("byte order mark", "\ufefftest"),
    ("full-width digits", "\uff11\uff12\uff13"),
    ("astral plane letters", "\U0001d573\U0001d58a\U0001d598\U0001d599"),
)
INTEGER_CASES: tuple[tuple[str, Any], ...] = (
    ("zero", 0),
    ("negative", -1),
    ("negative large", -999_999),
    ("max int32", INT32_MAX),
    ("min int32", INT32_MIN),
    ("null number", None),
)
NUMBER_CASES: tuple[tuple[str, Any], ...] = (
    ("float precision", 0.1 + 0.2),
    ("very small float", 1e-9),
    ("very large float", 1e308),
    ("negative zero", -0.0),
    ("NaN", math.nan),
    ("infinity", math.inf),
)
BOOLEAN_CASES: tuple[tuple[str, Any], ...] = (
    ("null boolean", None),
    ("int as boolean (0)", 0),
    ("int as boolean (1)", 1),
    ("string as boolean", "true"),
)
ARRAY_CASES: tuple[tuple[str, Any], ...] = (
    ("empty array", []),
    ("null array", None),
    ("single item", ["test"]),
    ("1000 items", ["item"] * 1000),
    ("mixed types", [1, "two", True, None, {"five": 5}]),
    ("nested arrays", [[[["deep"]]]]),
)
WRONG_TYPES: dict[str, Any] = {
    "string": 42,
    "integer": "not a number",
    "number": "not a number",
    "boolean": "not a boolean",
    "array": "not an array",
    "object": "not an object",
}
BAD_FORMATS: dict[str, str] = {
    "date-time": "2024-13-45T99:99:99Z",
    "date": "2024-02-30",
    "time": "25:61:61",
    "email": "not-an-email",
    "uri": "not a uri",
    "url": "not a url",
    "uuid": "not-a-uuid",
    "ipv4": "999.1.1.1",
    "ipv6": "::g",
    "hostname": "-bad-.host-",
}


def _nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": True}
    for _ in range(depth):
        value = {"nested": value}
    return value


OBJECT_CASES: tuple[tuple[str, Any], ...] = (
    ("empty object", {}),
    ("null object", None),
    ("deeply nested (20 levels)", _nested(20)),
    ("100 keys", {f"key{index}": index for index in range(100)}),
)
TYPE_CASES = {
    "string": STRING_CASES,
    "integer": INTEGER_CASES,
    "number": INTEGER_CASES + NUMBER_CASES,
    "boolean": BOOLEAN_CASES,
    "array": ARRAY_CASES,
    "object": OBJECT_CASES,
}


def sendable(value: Any) -> bool:
    """Whether JSON can carry `value` (no NaN or infinity anywhere inside)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, Mapping):
        return all(sendable(item) for item in value.values())
    if isinstance(value, list):
        return all(sendable(item) for item in value)
    return True


def _kind(prop: Mapping[str, Any]) -> str:
    declared = prop.get("type")
    if isinstance(declared, list):
        declared = next((kind for kind in declared if kind != "null"), None)
    return declared if isinstance(declared, str) else ""


def _boundaries(prop: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """Values just outside what the schema allows, and malformed values for its format."""
    step = 1 if _kind(prop) == "integer" else 0.5
    for key, sign in (("minimum", -1), ("exclusiveMinimum", 0), ("maximum", 1), ("exclusiveMaximum", 0)):
        bound = prop.get(key)
        if isinstance(bound, int | float) and not isinstance(bound, bool):
            yield f"{key} {bound}", bound
            if sign:
                yield f"{key} {'-' if sign < 0 else '+'} {step}", bound + sign * step
    for key, delta in (("minLength", -1), ("maxLength", 1)):
        length = prop.get(key)
        if isinstance(length, int) and length + delta >= 0:
            yield f"{key} {'-' if delta < 0 else '+'} 1", "x" * (length + delta)
    enum = prop.get("enum")
    if isinstance(enum, list) and enum:
        member = enum[0]
        if isinstance(member, str):
            yield "enum near miss (case)", member.swapcase() if member.swapcase() != member else member + "X"
            yield "enum near miss (suffix)", f"{member} "
        elif isinstance(member, int | float) and not isinstance(member, bool):
            yield (
                "enum near miss (number)",
                max(value for value in enum if isinstance(value, int | float)) + 1,
            )
    fmt = prop.get("format")
    if isinstance(fmt, str) and fmt in BAD_FORMATS:
        yield f"malformed {fmt}", BAD_FORMATS[fmt]


def _property_cases(prop: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    kind = _kind(prop)
    yield from _boundaries(prop)
    if kind in WRONG_TYPES:
        yield f"wrong type (sent {type(WRONG_TYPES[kind]).__name__})", WRONG_TYPES[kind]
    yield from TYPE_CASES.get(kind, ())
    if kind == "string":
        yield from UNICODE_CASES


def _mutation(rng: random.Random, names: list[str]) -> tuple[str, str, Any]:
    """A random (property, label, value): omitted, null, a long string or a random integer."""
    name = rng.choice(names)
    choice = rng.randrange(4)
    if choice == 0:
        return name, "omitted", _OMIT
    if choice == 1:
        return name, "null", None
    if choice == 2:
        length = rng.randrange(100, 5000)
        return (
            name,
            f"random string ({length} chars)",
            "".join(rng.choice("ab c\n\u00e9\u4e2d") for _ in range(length)),
        )
    number = rng.randint(-(2**40), 2**40)
    return name, f"random integer {number}", number


_OMIT = object()


def fuzz_inputs(schema: Mapping[str, Any] | None, *, seed: int, tool: str, runs: int) -> list[FuzzInput]:
    """The first `runs` inputs for the tool named `tool` whose input schema is `schema`."""
    schema = schema if isinstance(schema, Mapping) else {}
    base = tool_arguments(schema)
    props = schema.get("properties")
    props = (
        {str(k): v for k, v in props.items() if isinstance(v, Mapping)} if isinstance(props, Mapping) else {}
    )
    required = [name for name in schema.get("required", []) if isinstance(name, str)]
    inputs = [FuzzInput("empty object", {}), FuzzInput("null args", None)]
    for name in required:
        inputs.append(FuzzInput(f"missing required: {name}", {k: v for k, v in base.items() if k != name}))
    for name, prop in props.items():
        for label, value in _property_cases(prop):
            arguments = {**base, name: value}
            inputs.append(FuzzInput(f"{name}: {label}", arguments, sendable(arguments)))
    names = list(props)
    rng = random.Random(f"{seed}:{tool}")  # noqa: S311 - reproducible inputs, not secrets
    while names and len(inputs) < runs:
        name, label, value = _mutation(rng, names)
        arguments = {**base, **({} if value is _OMIT else {name: value})}
        if value is _OMIT:
            arguments.pop(name, None)
        inputs.append(FuzzInput(f"{name}: {label}", arguments))
    return inputs[:runs]
