"""The Anthropic Messages adapter against the local wire server: what it sends, what it reads back."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from tests.support.llm_wire import ANTHROPIC_PATH, LlmWire, WireCall

from toolproof.model.transcript import Usage
from toolproof.providers.anthropic_messages import AnthropicMessagesProvider
from toolproof.providers.base import Message, ModelRequest, ToolSpec, ToolUse

ADD = ToolSpec("add", "Add two numbers", {"type": "object", "properties": {"a": {"type": "number"}}})


@pytest.fixture
async def provider(llm_wire: LlmWire) -> AsyncIterator[AnthropicMessagesProvider]:
    adapter = AnthropicMessagesProvider(api_key="test-key", base_url=llm_wire.anthropic_base_url)
    yield adapter
    await adapter.aclose()


async def test_plain_reply_with_usage(llm_wire: LlmWire, provider: AnthropicMessagesProvider) -> None:
    llm_wire.reply("Hello there.", usage=(12, 3))
    reply = await provider.complete(ModelRequest("claude-test", (Message("user", "hi"),)))
    assert reply.text == "Hello there."
    assert reply.tool_uses == ()
    assert reply.usage == Usage(input_tokens=12, output_tokens=3)
    assert reply.usage is not None and reply.usage.total == 15
    assert reply.stop_reason == "end_turn"
    body = llm_wire.bodies(ANTHROPIC_PATH)[0]
    assert body["model"] == "claude-test"
    assert body["max_tokens"] == 4096
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    assert "system" not in body
    assert "tools" not in body
    assert "temperature" not in body


async def test_system_prompt_tools_and_temperature_are_sent(
    llm_wire: LlmWire, provider: AnthropicMessagesProvider
) -> None:
    llm_wire.reply("ok")
    request = ModelRequest(
        "claude-test", (Message("user", "add 1"),), system="Be brief.", tools=(ADD, ToolSpec("noop")),
        max_tokens=100, temperature=0.5,
    )
    await provider.complete(request)
    body = llm_wire.bodies()[0]
    assert body["system"] == "Be brief."
    assert body["tools"] == [
        {"name": "add", "description": "Add two numbers", "input_schema": ADD.input_schema},
        {"name": "noop", "input_schema": {"type": "object", "properties": {}}},
    ]
    assert body["max_tokens"] == 100
    assert body["temperature"] == 0.5


async def test_tool_uses_are_parsed(llm_wire: LlmWire, provider: AnthropicMessagesProvider) -> None:
    llm_wire.reply("Adding.", calls=[WireCall("add", {"a": 1}, "tu1"), WireCall("noop", {}, "tu2")])
    reply = await provider.complete(ModelRequest("m", (Message("user", "go"),), tools=(ADD,)))
    assert reply.text == "Adding."
    assert reply.tool_uses == (ToolUse("tu1", "add", {"a": 1}), ToolUse("tu2", "noop", {}))
    assert reply.stop_reason == "tool_use"


async def test_tool_results_round_trip_in_one_user_message(
    llm_wire: LlmWire, provider: AnthropicMessagesProvider
) -> None:
    llm_wire.reply("3 and an error")
    messages = (
        Message("user", "add, then fail"),
        Message("assistant", "On it.", tool_uses=(ToolUse("tu1", "add", {"a": 1}), ToolUse("tu2", "fail"))),
        Message("tool", "3", tool_use_id="tu1"),
        Message("tool", "it broke", tool_use_id="tu2", is_error=True),
    )
    await provider.complete(ModelRequest("m", messages))
    sent = llm_wire.bodies()[0]["messages"]
    assert [turn["role"] for turn in sent] == ["user", "assistant", "user"]
    assert sent[1]["content"] == [
        {"type": "text", "text": "On it."},
        {"type": "tool_use", "id": "tu1", "name": "add", "input": {"a": 1}},
        {"type": "tool_use", "id": "tu2", "name": "fail", "input": {}},
    ]
    assert sent[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "tu1", "content": "3"},
        {"type": "tool_result", "tool_use_id": "tu2", "content": "it broke", "is_error": True},
    ]


async def test_assistant_tool_use_without_text_has_no_text_block(
    llm_wire: LlmWire, provider: AnthropicMessagesProvider
) -> None:
    llm_wire.reply("done")
    messages = (
        Message("user", "go"),
        Message("assistant", tool_uses=(ToolUse("tu1", "noop"),)),
        Message("tool", "", tool_use_id="tu1"),
        Message("user", "and now?"),
    )
    await provider.complete(ModelRequest("m", messages))
    sent = llm_wire.bodies()[0]["messages"]
    assert sent[1]["content"] == [{"type": "tool_use", "id": "tu1", "name": "noop", "input": {}}]
    assert sent[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "tu1"},  # a blank result goes without content
        {"type": "text", "text": "and now?"},
    ]
