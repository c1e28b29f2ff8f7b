"""`structured` and `structured_schema`: expectations on a tool result's `structuredContent`.

Paths are RFC 9535 JSONPath; values compare as JSON without coercion (`5` is not `"5"`, `1` equals `1.0`).
A path that selects one node is compared with that node's value, one that selects several with the list of
their values (in document order).
"""

from __future__ import annotations

import json
from typing import Any

from toolproof.check.failures import fail
from toolproof.core.gofmt import cut
from toolproof.core.jsonpath import PathSyntaxError, json_equal, jsonpath_values
from toolproof.model.observation import Observation
from toolproof.model.result import Failure
from toolproof.model.server_case import Expect

SHOWN = 300
NO_STRUCTURED = "the result has no structuredContent"


def has_structured(obs: Observation) -> bool:
    """Whether the result carried a `structuredContent` member (even a null one)."""
    return "structuredContent" in obs.result or obs.structured is not None


def shown(value: Any) -> str:
    """A JSON value as compact JSON text, cut to a readable length."""
    return cut(json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str), SHOWN)


def check_structured(expect: Expect, obs: Observation) -> Failure | None:
    """Every path selects a value equal to the expected one, in the order written."""
    if not expect.structured:
        return None
    if not has_structured(obs):
        return fail("structured", f"{NO_STRUCTURED}; text: {shown(obs.text)}", expect.structured, None)
    return check_paths("structured", expect.structured, obs.structured, "structuredContent")


def check_paths(said: str, paths: dict[str, Any], document: Any, where: str) -> Failure | None:
    """Each RFC 9535 path of `paths` selects in `document` (named `where` in a failure) a value equal to the
    expected one, in the order written; the first that does not is the failure of the check `said`."""
    for path, expected in paths.items():
        try:
            values = jsonpath_values(path, document)
        except PathSyntaxError as error:
            return fail(said, str(error), expected, None, path=path)
        if not values:
            message = f"{path} selects nothing in {where} {shown(document)}"
            return fail(said, message, expected, None, path=path)
        actual = values[0] if len(values) == 1 else values
        if not json_equal(actual, expected):
            message = f"{path}: expected {shown(expected)}, got {shown(actual)} (JSON equality, no coercion)"
            return fail(said, message, expected, actual, path=path)
    return None


def check_structured_schema(expect: Expect, obs: Observation) -> Failure | None:
    """structuredContent is present and valid against the case's JSON Schema."""
    if expect.structured_schema is None:
        return None
    if not has_structured(obs):
        return fail(
            "structured_schema", f"{NO_STRUCTURED}; text: {shown(obs.text)}", expect.structured_schema, None
        )
    from toolproof.core.schemas import schema_violation  # jsonschema: loaded only for a schema check

    violation = schema_violation(expect.structured_schema, obs.structured)
    if violation is None:
        return None
    message = (
        f"structuredContent does not match the schema: {violation}; structuredContent: "
        f"{shown(obs.structured)}"
    )
    return fail("structured_schema", message, expect.structured_schema, obs.structured)
