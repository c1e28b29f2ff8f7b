"""The client against real third-party servers: server-everything (npm) and mcp-server-time (PyPI)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio
import pytest
from tests.integration.mcp.helpers import stdio

from toolproof.mcp.client import Session
from toolproof.mcp.errors import RequestFailed
from toolproof.mcp.session import open_session
from toolproof.mcp.spec import Mocks
from toolproof.model.result import FailureKind
from toolproof.model.server_config import ElicitationMock, SamplingMock

pytestmark = pytest.mark.servers

MOCKS = Mocks(
    roots=("/srv/project",),
    sampling=SamplingMock(text="mocked reply"),
    elicitation=ElicitationMock(action="accept", content={"name": "Ann"}),
)
WAIT_S = 8.0


@pytest.fixture(scope="module")
async def everything() -> AsyncIterator[Session]:
    async with open_session(stdio("mcp-server-everything", mocks=MOCKS)) as session:
        yield session


def text(result: dict[str, object]) -> str:
    content = result["content"]
    assert isinstance(content, list)
    return "\n".join(block["text"] for block in content if block["type"] == "text")


async def test_everything_handshake(everything: Session) -> None:
    assert everything.server_info["name"] == "mcp-servers/everything"
    assert everything.protocol_version == "2025-11-25"
    assert everything.server_capabilities["resources"] == {"subscribe": True, "listChanged": True}


async def test_everything_tools(everything: Session) -> None:
    names = {tool["name"] for tool in await everything.list_tools()}
    assert {"echo", "get-sum", "trigger-sampling-request", "get-roots-list"} <= names
    assert text(await everything.call_tool("echo", {"message": "hi"})) == "Echo: hi"
    structured = await everything.call_tool("get-structured-content", {"location": "Chicago"})
    assert set(structured["structuredContent"]) == {"temperature", "conditions", "humidity"}
    image = await everything.call_tool("get-tiny-image", {})
    assert "image" in [block["type"] for block in image["content"]]
    missing = await everything.call_tool("no-such-tool", {})
    assert missing["isError"] is True


async def test_everything_resources(everything: Session) -> None:
    listing = await everything.list_resources()
    uris = [resource["uri"] for resource in listing["resources"]]
    assert "demo://resource/static/document/architecture.md" in uris
    read = await everything.read_resource("demo://resource/dynamic/text/1")
    assert read["contents"][0]["text"].startswith("Resource 1: This is a plaintext resource")
    await everything.subscribe(uris[0])
    await everything.unsubscribe(uris[0])


async def test_everything_prompts(everything: Session) -> None:
    names = {prompt["name"] for prompt in (await everything.list_prompts())["prompts"]}
    assert {"simple-prompt", "args-prompt", "completable-prompt"} <= names
    prompt = await everything.get_prompt("args-prompt", {"city": "Paris"})
    assert prompt["messages"][0]["content"]["text"] == "What's weather in Paris?"


async def test_everything_completion_with_and_without_context(everything: Session) -> None:
    ref = {"type": "ref/prompt", "name": "completable-prompt"}
    department = await everything.complete(ref, {"name": "department", "value": "E"}, None)
    assert department["completion"]["values"] == ["Engineering"]
    member = await everything.complete(ref, {"name": "name", "value": ""}, {"department": "Engineering"})
    assert member["completion"]["values"] == ["Alice", "Bob", "Charlie"]


async def test_everything_sampling_elicitation_and_roots(everything: Session) -> None:
    sampled = text(await everything.call_tool("trigger-sampling-request", {"prompt": "hi"}))
    assert '"text": "mocked reply"' in sampled
    elicited = text(await everything.call_tool("trigger-elicitation-request", {}))
    assert "- Name: Ann" in elicited
    roots = text(await everything.call_tool("get-roots-list", {}))
    assert "1. project\n   URI: file:///srv/project" in roots


async def test_everything_progress(everything: Session) -> None:
    arguments = {"duration": 0.3, "steps": 3}
    await everything.call_tool("trigger-long-running-operation", arguments, progress=True)
    assert everything.progress_count == 3


async def test_everything_logging(everything: Session) -> None:
    await everything.set_log_level("debug")
    mark = everything.mark()
    await everything.call_tool("toggle-simulated-logging", {})
    with anyio.move_on_after(WAIT_S):
        while not any(n.method == "notifications/message" for n in everything.notifications[mark:]):
            await anyio.sleep(0.02)
    await everything.call_tool("toggle-simulated-logging", {})
    assert any(n.method == "notifications/message" for n in everything.notifications[mark:])


async def test_everything_rejects_an_invalid_log_level(everything: Session) -> None:
    with pytest.raises(RequestFailed) as caught:
        await everything.set_log_level("verbose")
    assert caught.value.failure.kind is FailureKind.RPC_ERROR  # sent as given, refused by the server


async def test_mcp_server_time() -> None:
    async with open_session(stdio("mcp-server-time", "--local-timezone", "UTC")) as session:
        assert {tool["name"] for tool in await session.list_tools()} == {"get_current_time", "convert_time"}
        result = await session.call_tool("get_current_time", {"timezone": "Europe/Paris"})
        assert '"timezone": "Europe/Paris"' in text(result)
        converted = await session.call_tool(
            "convert_time", {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}
        )
        assert "21:00" in text(converted)
