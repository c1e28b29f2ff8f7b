"""Both protocol eras against servers written with the official SDK: the 2025-11-25 handshake, where the
server sends sampling / elicitation / roots requests, and 2026-07-28, where it returns input_required results
that the session answers from the same mocks and retries."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from tests.integration.mcp.helpers import ROOT, misbehaving, stdio, tiny

from toolproof.mcp.errors import RequestFailed
from toolproof.mcp.session import open_session
from toolproof.mcp.spec import ConnectSpec, Mocks, ProtocolMode
from toolproof.model.result import FailureKind
from toolproof.model.server_config import ElicitationMock, SamplingMock, Transport

pytestmark = pytest.mark.servers

TRAVEL = ROOT / "examples" / "servers" / "travel_server.py"
CONTRACT = ROOT / "tests" / "servers" / "contract_server.py"
MOCKS = Mocks(
    roots=("file:///srv/trips",),
    sampling=SamplingMock(text="Walk the old town.", model="mock-model"),
    elicitation=ElicitationMock(action="accept", content={"confirm": True, "traveller": "Ada"}),
)


def travel(protocol: ProtocolMode, mocks: Mocks = MOCKS) -> ConnectSpec:
    return stdio(sys.executable, str(TRAVEL), protocol=protocol, mocks=mocks)


def contract(mocks: Mocks) -> ConnectSpec:
    return stdio(sys.executable, str(CONTRACT), protocol="2026-07-28", mocks=mocks)


def methods(wire: list[Any], direction: str) -> list[str]:
    return [str(getattr(r.message, "method", "")) for r in wire if r.direction == direction]


@pytest.mark.parametrize(
    ("protocol", "version"), [("legacy", "2025-11-25"), ("2026-07-28", "2026-07-28"), ("auto", "2026-07-28")]
)
async def test_every_client_request_is_answered_by_the_mocks(protocol: ProtocolMode, version: str) -> None:
    async with open_session(travel(protocol)) as session:
        assert session.protocol_version == version
        suggested = await session.call_tool("suggest_trip", {"city": "Oslo"})
        booked = await session.call_tool("book_trip", {"city": "Kyoto"})
        folders = await session.call_tool("trip_folders", {})
        wire = session.wire
    suggestion = {"city": "Oslo", "suggestion": "Walk the old town.", "model": "mock-model"}
    assert suggested["structuredContent"] == suggestion
    assert booked["structuredContent"] == {"city": "Kyoto", "traveller": "Ada", "reference": "KYO-003"}
    assert folders["structuredContent"] == {"folders": ["file:///srv/trips"]}
    asked = {"sampling/createMessage", "elicitation/create", "roots/list"}
    calls = methods(wire, "out").count("tools/call")
    if version == "2025-11-25":  # asked over the back-channel, each call sent once
        assert asked <= set(methods(wire, "in"))
        assert calls == 3
    else:  # asked inside input_required results: each call is sent again with the answers
        assert not asked & set(methods(wire, "in"))
        assert calls == 6
        retries = [r.message.params for r in wire if getattr(r.message, "method", "") == "tools/call"][1::2]
        assert all("inputResponses" in params and "requestState" in params for params in retries)


async def test_a_declined_elicitation_is_a_tool_error_in_the_2026_era() -> None:
    mocks = Mocks(elicitation=ElicitationMock(action="decline"))
    async with open_session(travel("2026-07-28", mocks)) as session:
        result = await session.call_tool("book_trip", {"city": "Oslo"})
    assert result["isError"] is True


async def test_the_tool_listing_is_fetched_once_per_session() -> None:
    async with open_session(travel("2026-07-28")) as session:
        forecast = await session.tool_declaration("forecast")
        missing = await session.tool_declaration("no_such_tool")
        listed = await session.list_tools()
        again = await session.tool_declaration("forecast")
        wire = session.wire
    assert forecast is not None and forecast["outputSchema"]["type"] == "object"
    assert missing is None
    assert again == forecast and len(listed) == 4
    assert methods(wire, "out").count("tools/list") == 2  # the explicit list_tools() and the first lookup


async def test_input_answered_and_request_state_echoed() -> None:
    spec = contract(Mocks(sampling=SamplingMock(text="hi")))
    async with open_session(spec) as session:
        result = await session.call_tool("ask_model", {})
    assert result["content"][0]["text"] == "the model said 'hi' (state asked-once)"


@pytest.mark.parametrize(
    ("tool", "mocks", "message"),
    [
        ("ask_model", Mocks(), "tools/call ask_model: the server asked for sampling/createMessage, which the "
         "client did not offer (give the case client_capabilities.sampling to answer it)"),
        ("ask_forever", Mocks(sampling=SamplingMock(text="hi")),
         "tools/call ask_forever: the server still asked for input after 10 rounds"),
    ],
)
async def test_input_requests_that_cannot_settle_are_protocol_failures(
    tool: str, mocks: Mocks, message: str
) -> None:
    async with open_session(contract(mocks)) as session:
        with pytest.raises(RequestFailed) as raised:
            await session.call_tool(tool, {})
    assert raised.value.failure.kind is FailureKind.PROTOCOL
    assert raised.value.failure.message == message


async def test_a_result_without_result_type_is_complete_in_the_2026_era() -> None:
    async with open_session(misbehaving("half_modern", protocol="2026-07-28")) as session:
        result = await session.call_tool("t", {})
        assert session.protocol_version == "2026-07-28"
        assert session.server_capabilities == {"tools": {}}  # asked with server/discover, though pinned
    assert result == {"content": [{"type": "text", "text": "ok"}]}  # as sent


async def test_a_pinned_2026_era_never_falls_back_to_the_handshake() -> None:
    with pytest.raises(RequestFailed) as raised:
        async with open_session(tiny(protocol="2026-07-28")):
            pass
    failure = raised.value.failure
    assert failure.kind is FailureKind.PROTOCOL
    refused = "initialize: server/discover at 2026-07-28 was answered with error -32601 ("
    assert failure.message.startswith(refused)
    assert failure.message.endswith(
        "): the server does not speak the 2026-07-28 era, and a pinned --protocol never falls back; run with "
        "--protocol 2025-11-25 or --protocol auto"
    )


HANDSHAKE_LISTING = (
    "tools/list: the server did not answer in the 2026-07-28 era (cacheScope: Field required): it sent a "
    'result without resultType, as a server of the 2025-11-25 handshake era does ({"tools": [{"name": "t", '
    '"inputSchema": {"type": "object"}}]}); run with --protocol 2025-11-25'
)


@pytest.mark.parametrize(("protocol", "advice"), [("2026-07-28", " or --protocol auto"), ("auto", "")])
async def test_a_handshake_era_answer_in_the_2026_era_is_named_as_such(
    protocol: ProtocolMode, advice: str
) -> None:
    async with open_session(misbehaving("half_modern", protocol=protocol)) as session:
        assert session.protocol_version == "2026-07-28"
        with pytest.raises(RequestFailed) as raised:
            await session.list_tools()
    failure = raised.value.failure
    assert failure.kind is FailureKind.PROTOCOL
    assert failure.message == HANDSHAKE_LISTING + advice


async def test_the_same_server_in_auto_mode_falls_back_to_the_handshake() -> None:
    async with open_session(tiny(protocol="auto")) as session:
        result = await session.call_tool("echo", {"text": "hi"})
        assert session.protocol_version == "2025-11-25"
    assert result["content"] == [{"type": "text", "text": "hi"}]


@pytest.mark.parametrize("protocol", ["2026-07-28", "auto"])
async def test_x_mcp_header_parameters_are_mirrored_over_http(
    travel_http_url: str, protocol: ProtocolMode
) -> None:
    """travel checks that Mcp-Param-City carries the city (it answers -32020 when the header is missing); the
    tools are listed once, before the first call."""
    spec = ConnectSpec(transport=Transport.HTTP, url=travel_http_url, protocol=protocol)
    async with open_session(spec) as session:
        oslo = await session.call_tool("forecast", {"city": "Oslo"})
        kyoto = await session.call_tool("forecast", {"city": "Kyoto"})
        sent = methods(session.wire, "out")
        excluded = session.excluded_tools
    assert oslo["structuredContent"]["city"] == "Oslo" and kyoto["structuredContent"]["city"] == "Kyoto"
    assert [m for m in sent if m.startswith("tools/")] == ["tools/list", "tools/call", "tools/call"]
    assert excluded == {}


async def test_the_handshake_era_over_http_lists_no_tools_before_a_call(travel_http_url: str) -> None:
    spec = ConnectSpec(transport=Transport.HTTP, url=travel_http_url, protocol="legacy")
    async with open_session(spec) as session:
        await session.call_tool("forecast", {"city": "Oslo"})
        sent = methods(session.wire, "out")
    assert "tools/list" not in sent
