"""mcp-assert's path language (`$.a.b[0]`, `$[1][0]`, `$`) and reading JSON out of a tool's text.

A path is `$` followed by `.key` and `[index]` segments; a path without the leading `$.` is read from the root
too (`a.b`), as mcp-assert reads it. Keys cannot contain `.`, `[` or `]`; indexes are non-negative integers.
Unlike mcp-assert, `$` alone is the whole document and `$[1]` indexes a top-level array.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from toolproof.core.gofmt import cut, go_json, go_number, quote

Segment = str | int

_PART = re.compile(r"(?P<key>[^\[\]]*)(?P<indexes>(?:\[[^\[\]]*\])*)")
_INDEX = re.compile(r"\[([^\[\]]*)\]")
WHOLE_TEXT = frozenset({"", "$", "$."})


class PathError(ValueError):
    """A value cannot be read by path: bad syntax, a missing key, an index out of range, a wrong type."""


class NotJSONError(PathError):
    """The text holds no JSON document."""


def parse_json(text: str) -> Any:
    """`text` as one JSON value; as in Go's encoding/json, NaN, Infinity and out-of-range numbers fail."""
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except (ValueError, RecursionError) as error:
        raise NotJSONError(str(error)) from None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(literal: str) -> float:
    value = float(literal)
    if math.isinf(value):
        raise ValueError(f"number {literal} is out of range")
    return value


def read_json(text: str) -> tuple[Any, int]:
    """The text as JSON, else its first line that is valid JSON (any value), as mcp-assert reads it; with the
    1-based number of that line, or 0 when the whole text is the document."""
    try:
        return parse_json(text), 0
    except NotJSONError as error:
        lines = text.split("\n")
        for number, line in enumerate(lines, start=1):
            try:
                return parse_json(line), number
            except NotJSONError:
                continue
        where = "the text is not JSON" + (" and none of its lines is" if len(lines) > 1 else "")
        raise NotJSONError(f"{where} ({error})") from None


@lru_cache(maxsize=1024)
def parse_path(path: str) -> tuple[Segment, ...]:
    """The keys (str) and indexes (int) of `path`; raises `PathError` on bad syntax."""
    if path == "$":
        return ()
    if path.startswith("$."):
        rest, leading_index = path[2:], False
    elif path.startswith("$["):
        rest, leading_index = path[1:], True
    else:
        rest, leading_index = path, False
    segments: list[Segment] = []
    for position, part in enumerate(rest.split(".")):
        match = _PART.fullmatch(part)
        if match is None:
            raise PathError(f"bad path {quote(path)}: cannot read {quote(part)} (write key or key[0])")
        key = match["key"]
        if key:
            segments.append(key)
        elif not (position == 0 and leading_index):
            raise PathError(f"bad path {quote(path)}: empty key (write $.key, $.key[0] or $[0])")
        for index in _INDEX.findall(match["indexes"]):
            if not index.isascii() or not index.isdigit():
                raise PathError(f"bad path {quote(path)}: index [{index}] is not a non-negative integer")
            segments.append(int(index))
    return tuple(segments)


def render_path(segments: tuple[Segment, ...]) -> str:
    """`("a", 0, "b")` -> `$.a[0].b`."""
    return "$" + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in segments)


def json_type(value: Any) -> str:
    """The JSON name of a decoded value's type."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    return type(value).__name__


def lookup(document: Any, path: str) -> Any:
    """The value at `path` in a decoded JSON document; raises `PathError` saying where the walk stopped."""
    segments = parse_path(path)
    current = document
    for depth, segment in enumerate(segments):
        here = render_path(segments[:depth])
        if isinstance(segment, int):
            if not isinstance(current, list | tuple):
                raise PathError(f"{path}: {here} is {_described(current)}, not an array")
            if segment >= len(current):
                raise PathError(
                    f"{path}: index {segment} is out of range, the array at {here} has {_items(len(current))}"
                )
            current = current[segment]
        else:
            if not isinstance(current, Mapping):
                raise PathError(f"{path}: {here} is {_described(current)}, not an object")
            if segment not in current:
                keys = ", ".join(quote(str(key), 40) for key in list(current)[:20]) or "none"
                raise PathError(f"{path}: no key {quote(segment)} in the object at {here} (keys: {keys})")
            current = current[segment]
    return current


def _described(value: Any) -> str:
    kind = json_type(value)
    if isinstance(value, Mapping | list | tuple):
        return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"
    if value is None:
        return "null"
    return f"a {kind} ({cut(go_json(value), 60)})"


def _items(count: int) -> str:
    return f"{count} item" if count == 1 else f"{count} items"


def capture_value(text: str, path: str) -> str:
    """A setup `capture`: the value at `path` in the step's JSON text, rendered as mcp-assert renders it.

    `$` (or `$.`) captures the text unchanged, without parsing it. Otherwise the text is read like `json_path`
    reads it (whole text, else the first line that is valid JSON; mcp-assert does not fall back, so a step
    whose text is prose followed by a JSON line fails there). Strings are captured as they are, numbers
    exactly (`1234567`, `1.5`), booleans as `true`/`false`, null as `null`, objects and arrays as compact JSON
    with sorted keys.
    """
    if path in WHOLE_TEXT:
        return text
    value = lookup(read_json(text)[0], path)
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return go_number(value)
    return go_json(value)
