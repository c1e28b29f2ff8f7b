"""The cross-era diff of `conformance --protocol both`: what one era lists and the other does not fails."""

from __future__ import annotations

from typing import Any, cast

from toolproof.model.result import Status
from toolproof.probe.conformance.checks import ProbedServer
from toolproof.probe.conformance.eras import cross_era
from toolproof.probe.conformance.wire import Link

SCHEMA = {"type": "object"}


def probe(capabilities: dict[str, Any], **listed: list[dict[str, Any]]) -> ProbedServer:
    return ProbedServer(cast(Link, None), capabilities, dict(listed))


def statuses(handshake: ProbedServer, modern: ProbedServer) -> dict[str, tuple[Status, str]]:
    return {v.check: (v.status, v.message) for v in cross_era(handshake, modern)}


def test_the_same_listings_in_both_eras_pass() -> None:
    tools = [{"name": "a", "inputSchema": SCHEMA}]
    found = statuses(probe({"tools": {}}, tools=tools), probe({"tools": {"listChanged": True}}, tools=tools))
    assert {status for status, _ in found.values()} == {Status.PASS}


def test_a_tool_only_in_one_era_or_with_another_schema_fails() -> None:
    old = probe(
        {"tools": {}}, tools=[{"name": "a", "inputSchema": SCHEMA}, {"name": "b", "inputSchema": SCHEMA}]
    )
    new = probe({"tools": {}}, tools=[{"name": "a", "inputSchema": {"type": "object", "required": ["x"]}}])
    status, message = statuses(old, new)["tools listed the same in both eras"]
    assert status is Status.FAIL
    assert "only in 2025-11-25: b" in message and "inputSchema differs: a" in message


def test_a_feature_declared_in_one_era_only_fails() -> None:
    found = statuses(probe({"tools": {}, "prompts": {}}), probe({"tools": {}}))
    status, message = found["features declared the same in both eras"]
    assert status is Status.FAIL
    assert "['prompts', 'tools']" in message
