"""Every Session method against the example notes server, over stdio, Streamable HTTP and legacy SSE."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import anyio
import pytest
from tests.integration.mcp.helpers import ROOT, notes, with_fields

from toolproof.mcp.client import Session
from toolproof.mcp.errors import RequestFailed
from toolproof.mcp.session import open_session
from toolproof.mcp.spec import ConnectSpec, Mocks
from toolproof.model.observation import Notification
from toolproof.model.result import FailureKind
from toolproof.model.server_config import ElicitationMock, SamplingMock

pytestmark = pytest.mark.servers

MOCKS = Mocks(
    roots=(str(ROOT), "file:///srv/shared"),
    sampling=SamplingMock(text="Two notes about groceries.", model="mock-model"),
    elicitation=ElicitationMock(action="accept", content={"confirm": False}),
)
WAIT_S = 5.0


@pytest.fixture(scope="module", params=["stdio", "http", "sse"])
async def session(request: pytest.FixtureRequest) -> AsyncIterator[Session]:
    """One session per transport, shared by the tests of this module (the stdio server starts in ~1 s)."""
    spec = notes() if request.param == "stdio" else request.getfixturevalue(f"notes_{request.param}")
    async with open_session(with_fields(spec, mocks=MOCKS)) as opened:
        yield opened


def text(result: dict[str, object]) -> str:
    content = result["content"]
    assert isinstance(content, list)
    return "\n".join(block["text"] for block in content if block["type"] == "text")


async def arrived(session: Session, mark: int, method: str, count: int = 1) -> list[Notification]:
    """The notifications of `method` since `mark`, waiting up to WAIT_S for the first `count` of them (over
    HTTP a notification not tied to the request travels on another stream and may come after the result)."""
    with anyio.move_on_after(WAIT_S):
        while sum(n.method == method for n in session.notifications[mark:]) < count:
            await anyio.sleep(0.01)
    return [n for n in session.notifications[mark:] if n.method == method]


async def add(session: Session, title: str) -> int:
    result = await session.call_tool("add_note", {"title": title, "body": f"body of {title}", "tags": ["t"]})
    note_id = result["structuredContent"]["id"]
    assert isinstance(note_id, int)
    return note_id


async def test_handshake(session: Session) -> None:
    assert session.protocol_version == "2025-11-25"
    assert session.server_info == {"name": "notes", "version": "1.0.0"}
    capabilities = session.server_capabilities
    assert capabilities["resources"]["subscribe"] is True
    assert {"tools", "prompts", "logging", "completions"} <= set(capabilities)


async def test_the_client_offers_exactly_the_mocked_capabilities(session: Session) -> None:
    initialize = next(r.message for r in session.wire if getattr(r.message, "method", "") == "initialize")
    params = getattr(initialize, "params", None)
    assert params is not None
    assert set(params["capabilities"]) == {"roots", "sampling", "elicitation"}
    assert params["clientInfo"]["name"] == "toolproof"


async def test_list_tools(session: Session) -> None:
    tools = {tool["name"]: tool for tool in await session.list_tools()}
    assert {"add_note", "get_note", "delete_note", "import_notes", "summarize_notes"} <= set(tools)
    assert tools["delete_note"]["annotations"]["destructiveHint"] is True
    assert {"id", "title", "body"} <= set(tools["add_note"]["outputSchema"]["properties"])


async def test_structured_output_comes_back_as_sent(session: Session) -> None:
    result = await session.call_tool("add_note", {"title": "Structured", "body": "b"})
    assert result["isError"] is False
    assert result["structuredContent"]["title"] == "Structured"
    assert json.loads(text(result)) == result["structuredContent"]


async def test_tool_error_is_a_result(session: Session) -> None:
    result = await session.call_tool("get_note", {"note_id": 10**6})
    assert result["isError"] is True
    assert "no note with id 1000000" in text(result)


async def test_jsonrpc_error_is_an_rpc_failure(session: Session) -> None:
    with pytest.raises(RequestFailed) as caught:
        await session.call_tool("export_notes", {"format": "pdf"})
    failure = caught.value.failure
    assert failure.kind is FailureKind.RPC_ERROR
    assert failure.details == {
        "during": "tools/call export_notes",
        "code": -32602,
        "message": "unsupported format 'pdf': use json or markdown",
        "data": None,
    }


async def test_progress_is_counted_only_when_asked_for(session: Session) -> None:
    mark = session.mark()
    await session.call_tool("import_notes", {"count": 2, "delay": 0}, progress=False)
    assert not [n for n in session.notifications[mark:] if n.method == "notifications/progress"]
    result = await session.call_tool("import_notes", {"count": 3, "delay": 0}, progress=True)
    assert text(result) == "imported 3 notes"
    assert session.progress_count == 3
    steps = [n.params["progress"] for n in await arrived(session, mark, "notifications/progress")]
    assert steps == [1, 2, 3]


async def test_log_level_filters_log_messages(session: Session) -> None:
    everything = ["debug", "info", "warning", "error"]
    for level, expected in (("warning", everything[2:]), ("debug", everything)):
        await session.set_log_level(level)
        mark = session.mark()
        await session.call_tool("check_notes", {})
        got = await arrived(session, mark, "notifications/message", len(expected))
        assert [n.params["level"] for n in got] == expected


async def test_sampling_is_answered_by_the_mock(session: Session) -> None:
    result = await session.call_tool("summarize_notes", {})
    assert text(result) == "Summary (mock-model): Two notes about groceries."
    assert any(getattr(r.message, "method", "") == "sampling/createMessage" for r in session.wire)


async def test_elicitation_is_answered_by_the_mock(session: Session) -> None:
    result = await session.call_tool("clear_notes", {})
    assert text(result).startswith("not confirmed: kept ")


async def test_roots_are_answered_by_the_mock(session: Session) -> None:
    result = await session.call_tool("workspace_roots", {})
    assert text(result) == f"{ROOT.name}: {ROOT.as_uri()}\nshared: file:///srv/shared"


async def test_resources(session: Session) -> None:
    note_id = await add(session, "Readable")
    listing = await session.list_resources()
    assert [r["uri"] for r in listing["resources"]] == ["notes://all"]
    templates = await session.list_resource_templates()
    assert templates["resourceTemplates"][0]["uriTemplate"] == "notes://note/{note_id}"
    everything = json.loads((await session.read_resource("notes://all"))["contents"][0]["text"])
    assert note_id in [note["id"] for note in everything]
    one = await session.read_resource(f"notes://note/{note_id}")
    assert one["contents"][0]["text"] == "# Readable\n\nbody of Readable"
    with pytest.raises(RequestFailed) as caught:
        await session.read_resource("notes://note/999999")
    assert caught.value.failure.kind is FailureKind.RPC_ERROR


async def test_subscription_brings_updates_until_unsubscribed(session: Session) -> None:
    await session.subscribe("notes://all")
    mark = session.mark()
    await add(session, "Watched")
    assert [n.params for n in await arrived(session, mark, "notifications/resources/updated")] == [
        {"uri": "notes://all"}
    ]
    await session.unsubscribe("notes://all")
    mark = session.mark()
    await add(session, "Unwatched")
    await anyio.sleep(0.2)
    assert not [n for n in session.notifications[mark:] if n.method == "notifications/resources/updated"]


async def test_prompts(session: Session) -> None:
    prompts = {p["name"]: p for p in (await session.list_prompts())["prompts"]}
    assert [a["name"] for a in prompts["draft_note"]["arguments"]] == ["topic", "audience", "tone"]
    arguments = {"topic": "launch", "audience": "customers", "tone": "warm"}
    prompt = await session.get_prompt("draft_note", arguments)
    assert prompt["messages"][0]["content"]["text"] == "Draft a warm note about launch for the customers."


async def test_completion_with_and_without_context(session: Session) -> None:
    prompt = {"type": "ref/prompt", "name": "draft_note"}
    alone = await session.complete(prompt, {"name": "tone", "value": ""}, None)
    assert alone["completion"]["values"] == ["casual", "friendly", "formal", "warm"]
    narrowed = await session.complete(prompt, {"name": "tone", "value": ""}, {"audience": "customers"})
    assert narrowed["completion"]["values"] == ["formal", "warm"]
    sent = [r.message for r in session.wire if getattr(r.message, "method", "") == "completion/complete"]
    assert "context" not in getattr(sent[-2], "params", {})


async def test_completion_of_a_resource_template_variable(session: Session) -> None:
    note_id = await add(session, "Completable")
    ref = {"type": "ref/resource", "uri": "notes://note/{note_id}"}
    result = await session.complete(ref, {"name": "note_id", "value": str(note_id)}, None)
    assert str(note_id) in result["completion"]["values"]


async def test_ping(session: Session) -> None:
    await session.ping()


@pytest.mark.parametrize(("action", "expected"), [("decline", "decline: kept "), ("cancel", "cancel: kept ")])
async def test_elicitation_decline_and_cancel(notes_http: ConnectSpec, action: str, expected: str) -> None:
    mocks = Mocks(elicitation=ElicitationMock.model_validate({"action": action}))
    async with open_session(with_fields(notes_http, mocks=mocks)) as session:
        assert text(await session.call_tool("clear_notes", {})).startswith(expected)


async def test_without_mocks_no_capability_is_offered(notes_http: ConnectSpec) -> None:
    async with open_session(notes_http) as session:
        initialize = next(r.message for r in session.wire if getattr(r.message, "method", "") == "initialize")
        assert getattr(initialize, "params", {})["capabilities"] == {}
        with pytest.raises(RequestFailed) as caught:
            await session.call_tool("summarize_notes", {})
    assert caught.value.failure.kind is FailureKind.RPC_ERROR
    assert caught.value.failure.details["message"] == "Sampling not supported"


async def test_headers_reach_the_server(notes_http: ConnectSpec) -> None:
    spec = with_fields(notes_http, headers={"Authorization": "Bearer secret", "X-Trace": "toolproof"})
    async with open_session(spec) as session:
        assert session.server_info["name"] == "notes"


async def test_http_failures_are_transport_failures(notes_http: ConnectSpec, notes_sse: ConnectSpec) -> None:
    for good in (notes_http, notes_sse):
        spec = with_fields(good, url=good.url + "x")
        with pytest.raises(RequestFailed) as caught:
            async with open_session(spec):
                pass
        assert caught.value.failure.kind is FailureKind.TRANSPORT
        assert "HTTP 404 Not Found" in caught.value.failure.message
    refused = with_fields(notes_http, url="http://127.0.0.1:9/mcp")
    with pytest.raises(RequestFailed) as caught:
        async with open_session(refused):
            pass
    assert caught.value.failure.message.startswith("initialize: cannot reach http://127.0.0.1:9/mcp (Connect")
