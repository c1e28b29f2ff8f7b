"""The OpenAI Chat Completions adapter against the local wire server: what it sends, what it reads back."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from tests.support.llm_wire import OPENAI_PATH, LlmWire, WireCall

from toolproof.model.transcript import Usage
from toolproof.providers.base import Message, ModelRequest, ProviderError, ToolSpec, ToolUse
from toolproof.providers.openai_chat import OpenAIChatProvider

ADD = ToolSpec("add", "Add two numbers", {"type": "object", "properties": {"a": {"type": "number"}}})


@pytest.fixture
async def provider(llm_wire: LlmWire) -> AsyncIterator[OpenAIChatProvider]:
    adapter = OpenAIChatProvider(api_key="test-key", base_url=llm_wire.openai_base_url)
    yield adapter
    await adapter.aclose()


async def test_plain_reply_with_usage(llm_wire: LlmWire, provider: OpenAIChatProvider) -> None:
    llm_wire.reply("Hello there.", usage=(12, 3))
    reply = await provider.complete(ModelRequest("gpt-test", (Message("user", "hi"),)))
    assert reply.text == "Hello there."
    assert reply.tool_uses == ()
    assert reply.usage == Usage(input_tokens=12, output_tokens=3, total_tokens=15)
    assert reply.stop_reason == "stop"
    body = llm_wire.bodies(OPENAI_PATH)[0]
    assert body["model"] == "gpt-test"
    assert body["messages"] == [{"role": "user", "content": "hi"}]
    assert body["max_completion_tokens"] == 4096
    assert "tools" not in body
    assert "temperature" not in body


async def test_system_prompt_tools_and_temperature_are_sent(
    llm_wire: LlmWire, provider: OpenAIChatProvider
) -> None:
    llm_wire.reply("ok")
    request = ModelRequest(
        "gpt-test", (Message("user", "add 1"),), system="Be brief.", tools=(ADD,), max_tokens=100,
        temperature=0.0,
    )
    await provider.complete(request)
    body = llm_wire.bodies()[0]
    assert body["messages"][0] == {"role": "system", "content": "Be brief."}
    assert body["tools"] == [
        {"type": "function", "function": {"name": "add", "description": "Add two numbers",
                                          "parameters": ADD.input_schema}}
    ]
    assert body["max_completion_tokens"] == 100
    assert body["temperature"] == 0.0


async def test_tool_calls_are_parsed(llm_wire: LlmWire, provider: OpenAIChatProvider) -> None:
    llm_wire.reply(
        "Let me add.", calls=[WireCall("add", {"a": 1, "b": 2}, "c1"), WireCall("noop", "", "c2")]
    )
    reply = await provider.complete(ModelRequest("m", (Message("user", "go"),), tools=(ADD,)))
    assert reply.text == "Let me add."
    assert reply.tool_uses == (ToolUse("c1", "add", {"a": 1, "b": 2}), ToolUse("c2", "noop", {}))
    assert reply.stop_reason == "tool_calls"


async def test_tool_results_round_trip(llm_wire: LlmWire, provider: OpenAIChatProvider) -> None:
    llm_wire.reply("3")
    messages = (
        Message("user", "add 1 and 2"),
        Message("assistant", tool_uses=(ToolUse("c1", "add", {"a": 1, "b": 2}),)),
        Message("tool", "3", tool_use_id="c1"),
        Message("tool", "boom", tool_use_id="c2", is_error=True),
    )
    await provider.complete(ModelRequest("m", messages))
    sent = llm_wire.bodies()[0]["messages"]
    assert sent[1] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'}}
        ],
    }
    assert sent[2] == {"role": "tool", "tool_call_id": "c1", "content": "3"}
    assert sent[3] == {"role": "tool", "tool_call_id": "c2", "content": "boom"}


async def test_assistant_text_without_calls_is_plain_content(
    llm_wire: LlmWire, provider: OpenAIChatProvider
) -> None:
    llm_wire.reply("again")
    messages = (Message("user", "a"), Message("assistant", "b"), Message("user", "c"))
    await provider.complete(ModelRequest("m", messages))
    assert llm_wire.bodies()[0]["messages"][1] == {"role": "assistant", "content": "b"}


@pytest.mark.parametrize("arguments", ['{"a": 1', "[1, 2]"])
async def test_arguments_that_are_not_a_json_object_are_an_error(
    llm_wire: LlmWire, provider: OpenAIChatProvider, arguments: str
) -> None:
    llm_wire.reply(calls=[WireCall("add", arguments)])
    with pytest.raises(ProviderError) as caught:
        await provider.complete(ModelRequest("gpt-test", (Message("user", "go"),)))
    message = str(caught.value)
    assert "openai model 'gpt-test'" in message
    assert "'add'" in message
    assert "not a JSON object" in message
    assert arguments in message
