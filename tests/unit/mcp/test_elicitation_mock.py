"""The elicitation mock: an accepted form is completed with the schema's defaults and checked against it."""

from __future__ import annotations

from typing import Any

import pytest
from mcp.client.session import ClientRequestContext
from mcp_types import ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult, ErrorData
from tests.integration.mcp.helpers import notes

from toolproof.mcp.errors import RequestFailed
from toolproof.mcp.mocks import elicitation_callback
from toolproof.mcp.session import open_session
from toolproof.mcp.spec import Mocks
from toolproof.model.server_config import ElicitationMock

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
        "verified": {"type": "boolean", "default": True},
        "email": {"type": "string"},
    },
    "required": ["email"],
}


async def answer(mock: dict[str, Any], schema: dict[str, Any] = SCHEMA) -> ElicitResult | ErrorData:
    callback = elicitation_callback(ElicitationMock.model_validate(mock))
    params = ElicitRequestFormParams(message="Who are you?", requested_schema=schema)
    context: Any = ClientRequestContext(session=None, request_id=1, meta=None)  # type: ignore[arg-type]
    return await callback(context, params)


async def test_omitted_fields_take_the_schemas_defaults() -> None:
    result = await answer({"action": "accept", "content": {"email": "a@b.c", "age": 41}})
    assert isinstance(result, ElicitResult)
    assert result.content == {
        "email": "a@b.c",
        "age": 41,
        "name": "John Doe",
        "score": 95.5,
        "status": "active",
        "verified": True,
    }


async def test_a_wrong_type_names_the_field() -> None:
    result = await answer({"action": "accept", "content": {"email": "a@b.c", "age": "old"}})
    assert isinstance(result, ErrorData)
    assert result.code == -32602
    assert result.message == "elicitation mock: field 'age': 'old' is not of type 'integer'"


async def test_a_value_outside_the_enum_names_the_field() -> None:
    result = await answer({"action": "accept", "email": "a@b.c", "status": "gone"})
    assert isinstance(result, ErrorData)
    assert result.message.startswith("elicitation mock: field 'status': 'gone' is not one of")


async def test_a_required_field_without_default_is_named() -> None:
    result = await answer({"action": "accept", "content": {}})
    assert isinstance(result, ErrorData)
    assert "field 'email' is required" in result.message


async def test_decline_sends_no_content() -> None:
    result = await answer({"action": "decline", "content": {"age": "ignored"}})
    assert result == ElicitResult(action="decline")


async def test_an_invalid_requested_schema_is_reported() -> None:
    bad = {"type": "object", "properties": {"a": {"type": 5}}}
    result = await answer({"action": "accept", "content": {}}, bad)
    assert isinstance(result, ErrorData)
    assert "not valid JSON Schema" in result.message


async def test_url_mode_is_accepted_with_the_content_as_given() -> None:
    callback = elicitation_callback(ElicitationMock.model_validate({"action": "accept"}))
    params = ElicitRequestURLParams(message="Sign in", url="https://example.test/", elicitation_id="e1")
    context: Any = ClientRequestContext(session=None, request_id=1, meta=None)  # type: ignore[arg-type]
    result = await callback(context, params)
    assert result == ElicitResult(action="accept", content={})


async def test_a_misfit_reaches_the_case_with_the_field_named() -> None:
    """Over a real session the server gets the error and the case reports it (notes_server's clear_notes)."""
    mocks = Mocks(
        elicitation=ElicitationMock.model_validate({"action": "accept", "content": {"confirm": "yes"}})
    )
    with pytest.raises(RequestFailed) as caught:
        async with open_session(notes(mocks=mocks)) as session:
            await session.call_tool("clear_notes", {})
    assert "elicitation mock: field 'confirm': 'yes' is not of type 'boolean'" in caught.value.failure.message


async def test_a_required_field_without_a_default_is_named_to_the_case() -> None:
    mocks = Mocks(elicitation=ElicitationMock.model_validate({"action": "accept", "content": {}}))
    with pytest.raises(RequestFailed) as caught:
        async with open_session(notes(mocks=mocks)) as session:
            await session.call_tool("clear_notes", {})
    assert "field 'confirm' is required" in caught.value.failure.message
