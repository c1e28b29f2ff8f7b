"""A tool's result against the outputSchema the tool itself declared in tools/list.

The spec requires a tool with an outputSchema to return `structuredContent` that conforms to it; results with
`isError: true` are exempt. A breach is the server contradicting its own declaration, whatever the case
expected, so it is a `protocol` failure (the same class as any other reply that is not valid MCP).
"""

from __future__ import annotations

from typing import Any

from toolproof.check.failures import fail
from toolproof.check.structured import has_structured, shown
from toolproof.model.observation import Observation
from toolproof.model.result import Failure, FailureKind


def _breach(tool: str, message: str, expected: Any = None, actual: Any = None) -> Failure:
    """The protocol failure of `tool` breaking its own outputSchema."""
    return fail(
        "output_schema", f"tool {tool!r} {message}", expected, actual, kind=FailureKind.PROTOCOL, tool=tool
    )


def check_output_schema(obs: Observation) -> Failure | None:
    """None unless the called tool declared an outputSchema that its successful result breaks."""
    declaration = obs.tool
    if declaration is None or obs.is_error or declaration.get("outputSchema") is None:
        return None
    name = str(declaration.get("name", ""))
    schema = declaration["outputSchema"]
    if not isinstance(schema, dict):
        return _breach(name, f"declares an outputSchema that is not a JSON object: {shown(schema)}")
    if not has_structured(obs):
        return _breach(
            name,
            f"declares an outputSchema but its result has no structuredContent; text: {shown(obs.text)}",
            schema,
        )
    from toolproof.core.schemas import schema_violation  # jsonschema: loaded only for a declared schema

    violation = schema_violation(schema, obs.structured)
    if violation is None:
        return None
    return _breach(
        name,
        f"returned structuredContent that breaks its own outputSchema {violation}; "
        f"structuredContent: {shown(obs.structured)}",
        schema,
        obs.structured,
    )
