"""Valid arguments for a tool, generated from its input schema.

`tool_arguments(schema)` builds one argument object that a correct server must accept: every required
property (and, on request, the optional ones) gets a value chosen in this order: `const`, the first
`examples` entry, `default`, the first `enum` member, then a value built from the type and its constraints
(`format`, `pattern`, `minLength`/`maxLength`, `minimum`/`maximum` and their exclusive forms, `multipleOf`,
`minItems`/`maxItems`, `uniqueItems`, nested objects and arrays). Local `$ref`s (`#/$defs/...`,
`#/definitions/...`) resolve inside the schema; a recursive reference stops at a depth bound. A string
without a format or pattern takes a value suggested by its property name (a path, a URL, an email address,
...). `schema_value(schema)` does the same for one value.

Everything is pure and deterministic: the same schema always gives the same arguments.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any

import rstr

from toolproof.core.schemas import schema_violation

MAX_DEPTH = 8
"""Nesting bound: deeper (recursive) schemas get the smallest value of their type."""

_FORMATS: dict[str, str] = {
    "date-time": "2024-01-01T00:00:00Z",
    "date": "2024-01-01",
    "time": "12:00:00Z",
    "duration": "P1D",
    "email": "user@example.com",
    "idn-email": "user@example.com",
    "hostname": "example.com",
    "idn-hostname": "example.com",
    "ipv4": "127.0.0.1",
    "ipv6": "::1",
    "uri": "https://example.com/",
    "uri-reference": "https://example.com/",
    "iri": "https://example.com/",
    "iri-reference": "https://example.com/",
    "url": "https://example.com/",
    "uri-template": "https://example.com/{id}",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "json-pointer": "/a",
    "relative-json-pointer": "0",
    "regex": "^a$",
}

# A property name (lower case, `_`/`-` removed) ending in one of these suggests the value.
_NAME_HINTS: tuple[tuple[str, str], ...] = (
    ("timezone", "UTC"),
    ("email", "user@example.com"),
    ("url", "https://example.com/"),
    ("uri", "https://example.com/"),
    ("path", "."),
    ("file", "example.txt"),
    ("dir", "."),
    ("directory", "."),
    ("date", "2024-01-01"),
    ("time", "12:00"),
    ("id", "1"),
    ("query", "example"),
    ("name", "example"),
    ("language", "en"),
    ("lang", "en"),
)

_TYPE_ORDER = ("object", "string", "integer", "number", "boolean", "array", "null")


class _Context:
    """The root schema (for `$ref`) and the deterministic random source for patterns."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.rng = random.Random(0)  # noqa: S311 (reproducible values, not secrets)

    def resolve(self, schema: Mapping[str, Any]) -> Mapping[str, Any]:
        """Follow local `$ref`s (merging sibling keywords); an unresolvable one leaves `{}`."""
        seen: set[str] = set()
        while isinstance(schema.get("$ref"), str):
            ref = schema["$ref"]
            if ref in seen:
                return {}
            seen.add(ref)
            target = _pointer(self.root, ref)
            siblings = {key: value for key, value in schema.items() if key != "$ref"}
            schema = {**target, **siblings} if isinstance(target, Mapping) else siblings
        return schema


def _pointer(root: Mapping[str, Any], ref: str) -> Any:
    """The part of `root` a local JSON Pointer reference names, or None."""
    if not ref.startswith("#"):
        return None
    node: Any = root
    for raw in ref[1:].split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def tool_arguments(schema: Mapping[str, Any] | None, *, include_optional: bool = False) -> dict[str, Any]:
    """A valid argument object for a tool whose `inputSchema` is `schema` (`{}` when it has none)."""
    if not isinstance(schema, Mapping):
        return {}
    context = _Context(schema)
    value = _object(context, context.resolve(schema), include_optional, 0, "")
    return value if isinstance(value, dict) else {}


def schema_value(
    schema: Mapping[str, Any] | bool | None, *, name: str = "", include_optional: bool = False
) -> Any:
    """A valid value for `schema` on its own; `name` is the property it belongs to (a hint for strings)."""
    if not isinstance(schema, Mapping):
        return None if schema is False else "example"
    context = _Context(schema)
    return _value(context, schema, include_optional, 0, name)


def _value(context: _Context, raw: Mapping[str, Any] | Any, optional: bool, depth: int, name: str) -> Any:
    if not isinstance(raw, Mapping):
        return "example"
    schema = _merge_all_of(context, context.resolve(raw))
    if "const" in schema:
        return schema["const"]
    examples = schema.get("examples")
    if isinstance(examples, list) and examples and _fits(schema, examples[0]):
        return examples[0]
    if "default" in schema and _fits(schema, schema["default"]):
        return schema["default"]
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return enum[0]
    for branch_key in ("anyOf", "oneOf"):
        branches = schema.get(branch_key)
        if isinstance(branches, list) and branches:
            rest = {key: value for key, value in schema.items() if key != branch_key}
            for branch in branches:
                if isinstance(branch, Mapping) and context.resolve(branch).get("type") != "null":
                    return _value(context, {**rest, **context.resolve(branch)}, optional, depth + 1, name)
            return None
    kind = _type_of(schema)
    if kind == "object":
        return _object(context, schema, optional, depth, name)
    if kind == "array":
        return _array(context, schema, optional, depth, name)
    if kind == "string":
        return _string(context, schema, name)
    if kind in ("integer", "number"):
        return _number(schema, integer=kind == "integer")
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    return "example"


def _merge_all_of(context: _Context, schema: Mapping[str, Any]) -> Mapping[str, Any]:
    parts = schema.get("allOf")
    if not isinstance(parts, list):
        return schema
    merged: dict[str, Any] = {key: value for key, value in schema.items() if key != "allOf"}
    for part in parts:
        if not isinstance(part, Mapping):
            continue
        for key, value in _merge_all_of(context, context.resolve(part)).items():
            if key == "properties" and isinstance(value, Mapping):
                merged["properties"] = {**merged.get("properties", {}), **value}
            elif key == "required" and isinstance(value, list):
                merged["required"] = [*merged.get("required", []), *value]
            else:
                merged.setdefault(key, value)
    return merged


def _type_of(schema: Mapping[str, Any]) -> str | None:
    declared = schema.get("type")
    if isinstance(declared, str):
        return declared
    if isinstance(declared, list):
        kinds = [kind for kind in declared if isinstance(kind, str)]
        for kind in _TYPE_ORDER:
            if kind in kinds and kind != "null":
                return kind
        return "null" if "null" in kinds else None
    if "properties" in schema or "required" in schema:
        return "object"
    if "items" in schema or "prefixItems" in schema:
        return "array"
    if any(key in schema for key in ("minLength", "maxLength", "pattern", "format")):
        return "string"
    if any(key in schema for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")):
        return "number"
    return None


def _fits(schema: Mapping[str, Any], value: Any) -> bool:
    """Whether `value` satisfies the keywords of `schema` that do not need `$ref` resolution."""
    local = {key: item for key, item in schema.items() if key not in ("$ref", "examples", "default")}
    try:
        return schema_violation(local, value) is None
    except (RecursionError, ValueError):
        return False


def _object(context: _Context, schema: Mapping[str, Any], optional: bool, depth: int, name: str) -> Any:
    properties = schema.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    required = [key for key in schema.get("required", []) if isinstance(key, str)]
    names = list(dict.fromkeys([*required, *(properties if optional else [])]))
    result: dict[str, Any] = {}
    if depth >= MAX_DEPTH:
        return result
    for key in names:
        result[key] = _value(context, properties.get(key, {}), optional, depth + 1, key)
    minimum = schema.get("minProperties")
    extra = schema.get("additionalProperties", True)
    if isinstance(minimum, int) and len(result) < minimum:
        for key in properties:
            if len(result) >= minimum:
                break
            result.setdefault(key, _value(context, properties[key], optional, depth + 1, key))
        counter = 0
        while len(result) < minimum and extra is not False:
            counter += 1
            sub = extra if isinstance(extra, Mapping) else {}
            result[f"key{counter}"] = _value(context, sub, optional, depth + 1, "")
    return result


def _array(context: _Context, schema: Mapping[str, Any], optional: bool, depth: int, name: str) -> list[Any]:
    if depth >= MAX_DEPTH:
        return []
    prefix = schema.get("prefixItems")
    prefix = prefix if isinstance(prefix, list) else []
    items = schema.get("items", {})
    if isinstance(items, list):  # draft 4-7 tuple form
        prefix, items = items, schema.get("additionalItems", {})
    low = schema.get("minItems", 0)
    high = schema.get("maxItems")
    count = max(low if isinstance(low, int) else 0, 1, len(prefix))
    if isinstance(high, int):
        count = min(count, high)
    result: list[Any] = []
    for index in range(count):
        sub = prefix[index] if index < len(prefix) else items
        if sub is False:
            break
        item = _value(context, sub, optional, depth + 1, _singular(name))
        if schema.get("uniqueItems") and item in result:
            item = _distinct(item, index)
        result.append(item)
    return result


def _singular(name: str) -> str:
    return name[:-1] if name.endswith("s") and len(name) > 1 else name


def _distinct(item: Any, index: int) -> Any:
    """Make a repeated array item unique (for `uniqueItems`)."""
    if isinstance(item, str):
        return f"{item}{index}"
    if isinstance(item, bool):
        return not item
    if isinstance(item, int | float):
        return item + index
    return item


def _string(context: _Context, schema: Mapping[str, Any], name: str) -> str:
    low = schema.get("minLength", 0)
    low = low if isinstance(low, int) and low > 0 else 0
    high = schema.get("maxLength")
    high = high if isinstance(high, int) and high >= 0 else None
    fmt = schema.get("format")
    pattern = schema.get("pattern")
    candidates: list[str] = []
    if isinstance(fmt, str) and fmt in _FORMATS:
        candidates.append(_FORMATS[fmt])
    candidates.extend([_name_hint(name), "example"])
    for candidate in candidates:
        fitted = _fit_length(candidate, low, high)
        if fitted is not None and (not isinstance(pattern, str) or _fits(schema, fitted)):
            return fitted
    if isinstance(pattern, str):
        for _ in range(20):
            try:
                generated = rstr.Rstr(context.rng).xeger(pattern)
            except (ValueError, TypeError, RecursionError, IndexError):
                break
            if _fits(schema, generated):
                return generated
    return _fit_length("example", low, high) or ""


def _fit_length(text: str, low: int, high: int | None) -> str | None:
    if len(text) < low:
        text = (text * (low // max(len(text), 1) + 1))[:low] if text else "x" * low
    if high is not None and len(text) > high:
        text = text[:high]
    return text if len(text) >= low else None


def _name_hint(name: str) -> str:
    key = name.lower().replace("_", "").replace("-", "")
    for suffix, value in _NAME_HINTS:
        if key.endswith(suffix):
            return value
    return "example"


def _number(schema: Mapping[str, Any], *, integer: bool) -> int | float:
    low, low_open = _bound(schema, "minimum", "exclusiveMinimum")
    high, high_open = _bound(schema, "maximum", "exclusiveMaximum")
    step = schema.get("multipleOf")
    step = step if isinstance(step, int | float) and not isinstance(step, bool) and step > 0 else None
    if integer:
        step = _integer_step(step)
    candidates: list[float] = []
    if low is not None:
        candidates.append(low)
    if high is not None:
        candidates.append(high)
    candidates.append(1.0)
    candidates.append(0.0)
    for start in candidates:
        value = _snap(start, step, low, low_open, high, high_open, integer)
        if value is not None:
            return value
    if low is not None and high is not None:
        middle = (low + high) / 2
        return int(middle) if integer else middle
    return 1 if integer else 1.0


def _integer_step(step: float | None) -> float:
    if step is None:
        return 1
    return step if float(step).is_integer() else step * _lcm_scale(step)


def _lcm_scale(step: float) -> int:
    for scale in range(1, 1001):
        if float(step * scale).is_integer():
            return scale
    return 1


def _bound(schema: Mapping[str, Any], inclusive: str, exclusive: str) -> tuple[float | None, bool]:
    """A bound and whether it is exclusive (draft 2020 number or draft 4 boolean form)."""
    open_value = schema.get(exclusive)
    closed_value = schema.get(inclusive)
    if isinstance(open_value, int | float) and _is_number(open_value):
        return float(open_value), True
    if isinstance(closed_value, int | float) and _is_number(closed_value):
        return float(closed_value), open_value is True
    return None, False


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _snap(
    start: float,
    step: float | None,
    low: float | None,
    low_open: bool,
    high: float | None,
    high_open: bool,
    integer: bool,
) -> int | float | None:
    """The first value at or above `start` that is a multiple of `step` and inside the bounds, if any."""
    unit = step or (1 if integer else None)
    if unit is None:
        value = start
        if low is not None and (value < low or (low_open and value == low)):
            value = low + 1 if high is None or low + 1 < high else (low + high) / 2
        if high is not None and (value > high or (high_open and value == high)):
            value = high - 1 if low is None or high - 1 > low else ((low or high) + high) / 2
    else:
        value = math.ceil(start / unit) * unit
        if low is not None and (value < low or (low_open and value <= low)):
            value = (math.floor(low / unit) + 1) * unit
        if high is not None and (value > high or (high_open and value >= high)):
            value = (math.ceil(high / unit) - 1) * unit
    inside_low = low is None or value > low or (not low_open and value == low)
    inside_high = high is None or value < high or (not high_open and value == high)
    if not (inside_low and inside_high):
        return None
    if integer or (float(value).is_integer() and isinstance(step, int)):
        return int(value)
    return value
