"""The pure parts of the SEP-2322 checks: what the probe answers a server's input requests with."""

from __future__ import annotations

from typing import Any

import mcp_types as types
import pytest

from toolproof.probe.conformance.mrtr import ANSWERS, answer_to, asks


def elicit(schema: dict[str, Any]) -> dict[str, Any]:
    return {"method": "elicitation/create", "params": {"message": "?", "requestedSchema": schema}}


def test_a_form_is_accepted_with_a_value_of_each_fields_type_and_the_first_choice() -> None:
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "age": {"type": "integer"},
            "ok": {"type": "boolean"},
            "colour": {"type": "string", "enum": ["red", "blue"]},
            "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l"}]},
        },
    }
    answer = answer_to(elicit(schema))
    assert answer == {
        "action": "accept",
        "content": {"name": "toolproof", "age": 1, "ok": True, "colour": "red", "size": "s"},
    }
    types.ElicitResult.model_validate(answer)


@pytest.mark.parametrize("method", ["sampling/createMessage", "roots/list"])
def test_sampling_and_roots_get_their_fixed_answers(method: str) -> None:
    assert answer_to({"method": method, "params": {}}) == ANSWERS[method]


def test_only_an_input_required_result_asks() -> None:
    assert asks({"result": {"resultType": "input_required", "inputRequests": {}}})
    assert not asks({"result": {"resultType": "complete", "content": []}})
    assert not asks({"error": {"code": -32021, "message": "no"}})
