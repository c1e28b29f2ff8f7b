"""Expectations on a result's cache hints and on the JSON-RPC error that answered a request, through
`check_expect` (their place in the table comes after every other expectation)."""

from __future__ import annotations

from typing import Any

import pytest

from toolproof.check.expect import check_expect
from toolproof.model.observation import Observation, RpcError
from toolproof.model.result import FailureKind
from toolproof.model.server_case import Expect

LISTING = Observation(result={"tools": [], "ttlMs": 60000, "cacheScope": "public", "resultType": "complete"})
UNHINTED = Observation(result={"tools": []})
UNSUPPORTED = Observation(
    error=RpcError(
        code=-32022,
        message="Unsupported protocol version",
        data={"supported": ["2025-11-25", "2026-07-28"], "requested": "2027-01-01"},
    )
)
MISSING_CAPABILITY = Observation(
    error=RpcError(
        code=-32021,
        message="Missing required client capability",
        data={"requiredCapabilities": {"elicitation": {"form": {}}}},
    )
)

PASSING: list[tuple[dict[str, Any], Observation]] = [
    ({"ttl_ms": 60000, "cache_scope": "public"}, LISTING),
    ({"error_code": -32022, "error_data": {"$.supported[1]": "2026-07-28", "$.requested": "2027-01-01"}},
     UNSUPPORTED),
    ({"error_data": {"$.supported": ["2025-11-25", "2026-07-28"]}}, UNSUPPORTED),
    ({"error_code": -32021, "error_data": {"$.requiredCapabilities.elicitation": {"form": {}}}},
     MISSING_CAPABILITY),
]


@pytest.mark.parametrize(("expect", "observation"), PASSING)
def test_expectations_that_hold(expect: dict[str, Any], observation: Observation) -> None:
    assert check_expect(Expect.model_validate(expect), observation) is None


FAILING: list[tuple[dict[str, Any], Observation, str]] = [
    ({"ttl_ms": 0}, LISTING, "ttl_ms: expected ttlMs 0, got 60000"),
    ({"ttl_ms": 0}, UNHINTED, "ttl_ms: expected ttlMs 0, the result has none"),
    ({"cache_scope": "private"}, LISTING, 'cache_scope: expected cacheScope "private", got "public"'),
    ({"cache_scope": "private"}, UNHINTED, 'cache_scope: expected cacheScope "private", got none'),
    ({"error_code": -32022}, LISTING,
     'error_code: expected JSON-RPC error -32022, the request succeeded: {"tools":[],"ttlMs":60000,'
     '"cacheScope":"public","resultType":"complete"}'),
    ({"error_code": -32022}, MISSING_CAPABILITY,
     'error_code: expected JSON-RPC error -32022, got -32021: "Missing required client capability"'),
    ({"error_data": {"$.supported[0]": "2026-07-28"}}, UNSUPPORTED,
     'error_data: $.supported[0]: expected "2026-07-28", got "2025-11-25" (JSON equality, no coercion)'),
    ({"error_data": {"$.supported": []}}, MISSING_CAPABILITY,
     'error_data: $.supported selects nothing in the error\'s data {"requiredCapabilities":{"elicitation":'
     '{"form":{}}}}'),
    ({"error_data": {"$.requested": "x"}}, UNHINTED,
     'error_data: expected a JSON-RPC error, the request succeeded: {"tools":[]}'),
]


@pytest.mark.parametrize(("expect", "observation", "message"), FAILING)
def test_expectations_that_fail_say_what_came(
    expect: dict[str, Any], observation: Observation, message: str
) -> None:
    failure = check_expect(Expect.model_validate(expect), observation)
    assert failure is not None
    assert (failure.kind, failure.message) == (FailureKind.EXPECTATION, message)
    assert failure.check == next(iter(expect))
