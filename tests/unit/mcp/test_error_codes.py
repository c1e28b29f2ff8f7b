"""The 2026-07-28 error codes are named in a failure's message and details, with what their data asks for."""

from __future__ import annotations

from typing import Any

import pytest
from mcp.shared.exceptions import MCPError

from toolproof.mcp.errors import classify
from toolproof.model.result import FailureKind


@pytest.mark.parametrize(
    ("code", "data", "message"),
    [
        (-32020, None, "tools/call t: the server answered with HeaderMismatch (-32020): no"),
        (
            -32021,
            {"requiredCapabilities": {"elicitation": {}, "sampling": {}}},
            "tools/call t: the server answered with MissingRequiredClientCapability (-32021): no "
            "(it requires the client capabilities elicitation, sampling)",
        ),
        (
            -32022,
            {"supported": ["2026-07-28", "2025-11-25"], "requested": "2099-01-01"},
            "tools/call t: the server answered with UnsupportedProtocolVersion (-32022): no "
            "(it supports 2026-07-28, 2025-11-25)",
        ),
        (-32602, {"supported": ["x"]}, "tools/call t: the server answered with JSON-RPC error -32602: no"),
    ],
)
def test_the_2026_error_codes_are_named_with_their_data(code: int, data: Any, message: str) -> None:
    failure = classify(MCPError(code, "no", data), during="tools/call t")
    assert failure.kind is FailureKind.RPC_ERROR
    assert failure.message == message
    assert failure.details["code"] == code and failure.details["data"] == data
    assert ("error" in failure.details) == (code != -32602)
