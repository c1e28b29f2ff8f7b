"""JSONPath (RFC 9535) queries and JSON equality without coercion."""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jsonpath_rfc9535


class PathSyntaxError(ValueError):
    """A JSONPath that RFC 9535 rejects."""


class PathTimeout(PathSyntaxError):
    """A JSONPath whose `match()` or `search()` pattern ran out of time: every caller that reports a bad path
    reports it the same way."""


@lru_cache(maxsize=2048)
def _query(path: str) -> jsonpath_rfc9535.JSONPathQuery:
    import jsonpath_rfc9535  # with the regex module: loaded only when a check queries a path

    from toolproof.core.jsonpath_functions import JSONPATH

    try:
        return JSONPATH.compile(path)
    except jsonpath_rfc9535.JSONPathError as error:
        raise PathSyntaxError(f"invalid JSONPath {path!r}: {error}") from None


def jsonpath_values(path: str, data: Any) -> list[Any]:
    """The values `path` (RFC 9535) selects in `data`; raises `PathSyntaxError` (or `PathTimeout`)."""
    query = _query(path)
    from toolproof.core.jsonpath_functions import SlowPattern  # loaded by _query already

    try:
        return [node.value for node in query.find(data)]
    except SlowPattern as error:
        raise PathTimeout(f"JSONPath {path!r}: {error}") from None


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality without coercion: `5` is not `"5"`, `true` is not `1`, `1` equals `1.0`."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b and not (isinstance(a, float) and math.isnan(a))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(json_equal(a[key], b[key]) for key in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b
