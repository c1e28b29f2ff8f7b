"""The client's answers to the server's own requests (sampling, elicitation, roots), from the mocks."""

from __future__ import annotations

import os
from typing import Any

from mcp.client.session import ClientRequestContext, ElicitationFnT, ListRootsFnT, SamplingFnT
from mcp_types import (
    INVALID_PARAMS,
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequestFormParams,
    ElicitRequestParams,
    ElicitResult,
    ErrorData,
    ListRootsResult,
    Root,
    TextContent,
)

from toolproof.model.server_config import ElicitationMock, SamplingMock


def root(entry: str) -> Root:
    """A root from a path (made absolute) or a file:// URI, named by its last path segment."""
    uri = entry if entry.startswith("file://") else "file://" + os.path.abspath(entry)
    path = uri.removeprefix("file://").rstrip("/")
    return Root(uri=uri, name=os.path.basename(path) or path or "/")


def sampling_callback(mock: SamplingMock) -> SamplingFnT:
    """Answers every sampling/createMessage with the mock's text, model and stop reason."""

    async def answer(
        context: ClientRequestContext, params: CreateMessageRequestParams
    ) -> CreateMessageResult:
        return CreateMessageResult(
            role="assistant",
            content=TextContent(type="text", text=mock.text),
            model=mock.model,
            stop_reason=mock.stop_reason,
        )

    return answer


def elicitation_callback(mock: ElicitationMock) -> ElicitationFnT:
    """Answers every elicitation/create with the mock's action; to accept a form, with the mock's content
    completed by the requested schema's defaults and checked against that schema (an error naming the
    field goes back to the server instead when it does not fit)."""

    async def answer(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult | ErrorData:
        if mock.action != "accept":
            return ElicitResult(action=mock.action)
        content = mock.response_content()
        if isinstance(params, ElicitRequestFormParams):
            content = with_defaults(content, params.requested_schema)
            problem = misfit(content, params.requested_schema)
            if problem:
                return ErrorData(code=INVALID_PARAMS, message=f"elicitation mock: {problem}")
        return ElicitResult(action="accept", content=content)

    return answer


def with_defaults(content: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """`content` plus the requested schema's `default` for every property it leaves out."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return dict(content)
    defaults = {
        name: spec["default"]
        for name, spec in properties.items()
        if isinstance(spec, dict) and "default" in spec and name not in content
    }
    return {**content, **defaults}


def misfit(content: dict[str, Any], schema: dict[str, Any]) -> str:
    """Why `content` does not fit the requested schema, naming the field ("" when it fits)."""
    from jsonschema import Draft202012Validator  # loaded only when an elicitation asks for a form
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as invalid:
        return f"the requested schema is not valid JSON Schema: {invalid.message}"
    errors = Draft202012Validator(schema).iter_errors(content)
    error = min(errors, key=lambda e: [str(part) for part in e.path], default=None)
    if error is None:
        return ""
    if error.path:
        return f"field {'.'.join(str(part) for part in error.path)!r}: {error.message}"
    if error.validator == "required":
        missing = [name for name in error.validator_value if name not in content]
        return f"field {missing[0]!r} is required, and neither the mock nor the schema's default gives it"
    return str(error.message)


def roots_callback(entries: tuple[str, ...]) -> ListRootsFnT:
    """Answers roots/list with the configured roots."""
    roots = [root(entry) for entry in entries]

    async def answer(context: ClientRequestContext) -> ListRootsResult:
        return ListRootsResult(roots=roots)

    return answer
