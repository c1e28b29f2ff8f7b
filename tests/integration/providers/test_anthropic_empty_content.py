"""The Anthropic adapter never sends what the Messages API rejects: empty text blocks, messages without
content, failed tool results without content. Checked on the wire, against the local model server, for
requests built by hand and for the agent loop over a real MCP server, whose model may answer with nothing."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.llm_wire import ANTHROPIC_PATH, LlmWire, WireCall

from toolproof.mcp.spec import ConnectSpec
from toolproof.model.server_config import Transport
from toolproof.providers.anthropic_messages import SILENT_FAILURE, AnthropicMessagesProvider
from toolproof.providers.base import Message, ModelRequest, ProviderError, ToolUse
from toolproof.sources.agent.loop import AgentSettings, run_conversation
from toolproof.sources.agent.mcp_tools import open_tool_host

TINY = Path(__file__).resolve().parents[3] / "examples" / "servers" / "tiny_server.py"


@pytest.fixture
async def provider(llm_wire: LlmWire) -> AsyncIterator[AnthropicMessagesProvider]:
    adapter = AnthropicMessagesProvider(api_key="test-key", base_url=llm_wire.anthropic_base_url)
    yield adapter
    await adapter.aclose()


def blocks(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Every content block of a request body, in order."""
    return [block for turn in body["messages"] for block in turn["content"]]


def assert_acceptable(body: dict[str, Any]) -> None:
    """What the real API checks: every message has content, no text is blank, a failed result says why."""
    assert all(turn["content"] for turn in body["messages"]), body["messages"]
    for block in blocks(body):
        if block["type"] == "text":
            assert block["text"].strip(), block
        if block.get("is_error"):
            assert str(block.get("content", "")).strip(), block


async def test_an_empty_reply_is_left_out_and_its_neighbours_merge(
    llm_wire: LlmWire, provider: AnthropicMessagesProvider
) -> None:
    llm_wire.reply("ok")
    messages = (
        Message("user", "hello"),
        Message("assistant", ""),  # the model answered nothing
        Message("user", "are you there?"),
    )
    await provider.complete(ModelRequest("m", messages))
    (body,) = llm_wire.bodies(ANTHROPIC_PATH)
    assert_acceptable(body)
    assert body["messages"] == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "hello"}, {"type": "text", "text": "are you there?"}],
        }
    ]


async def test_blank_text_beside_tool_uses_and_blank_tool_results(
    llm_wire: LlmWire, provider: AnthropicMessagesProvider
) -> None:
    llm_wire.reply("ok")
    messages = (
        Message("user", "go"),
        Message("assistant", "  \n", tool_uses=(ToolUse("tu1", "noop"), ToolUse("tu2", "fail"))),
        Message("tool", "", tool_use_id="tu1"),
        Message("tool", " ", tool_use_id="tu2", is_error=True),
    )
    await provider.complete(ModelRequest("m", messages))
    (body,) = llm_wire.bodies(ANTHROPIC_PATH)
    assert_acceptable(body)
    assert body["messages"][1]["content"] == [
        {"type": "tool_use", "id": "tu1", "name": "noop", "input": {}},
        {"type": "tool_use", "id": "tu2", "name": "fail", "input": {}},
    ]
    assert body["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "tu1"},
        {"type": "tool_result", "tool_use_id": "tu2", "content": SILENT_FAILURE, "is_error": True},
    ]


async def test_a_request_with_nothing_to_send_is_not_sent(
    llm_wire: LlmWire, provider: AnthropicMessagesProvider
) -> None:
    with pytest.raises(ProviderError, match="nothing to send"):
        await provider.complete(ModelRequest("m", (Message("user", " "),)))
    assert llm_wire.requests == []


async def test_the_agent_loop_after_an_empty_answer(
    llm_wire: LlmWire, provider: AnthropicMessagesProvider
) -> None:
    llm_wire.reply(calls=[WireCall("echo", {"text": ""}, "tu1")])  # turn 1: a call whose result is empty
    llm_wire.reply("")  # then nothing at all: the turn ends with an empty answer
    llm_wire.reply("Done.")  # turn 2
    tiny = ConnectSpec(
        transport=Transport.STDIO, command=sys.executable, args=(str(TINY),), env=dict(os.environ)
    )
    async with open_tool_host({"tiny": tiny}) as host:
        run = await run_conversation(
            "silent", ["echo nothing", "did it work?"], provider, host, AgentSettings("m")
        )
    assert [turn.reply for turn in run.turns] == ["", "Done."]
    assert [(call.tool, call.result) for call in run.turns[0].calls] == [("echo", "")]
    bodies = llm_wire.bodies(ANTHROPIC_PATH)
    assert len(bodies) == 3
    for body in bodies:
        assert_acceptable(body)
    assert [turn["role"] for turn in bodies[2]["messages"]] == ["user", "assistant", "user"]
    assert bodies[2]["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "tu1"},
        {"type": "text", "text": "did it work?"},
    ]
