"""Anthropic Messages through the official `anthropic` SDK.

The system prompt goes in `system`; an assistant's tool uses are `tool_use` blocks, and tool results go back
as `tool_result` blocks (with `is_error` for a failed tool) in the next user message. Consecutive messages of
one role are merged into one message, so the results of parallel tool uses travel together as the format
requires. The API rejects empty text blocks, messages without content and failed tool results without
content, so blank text is never sent: a message left with nothing (a model reply that was empty) is left out
and its neighbours merge, a blank tool result goes without `content` (a failed one says it had no output), and
a request with nothing to send at all fails without being sent. Input tokens count cache reads and writes
too, as the API bills them. The SDK no longer has a `temperature` parameter, so a request's temperature, when
set, is added to the body as it is.
"""

from __future__ import annotations

from typing import Any

import anthropic
from anthropic.types import ContentBlockParam, MessageParam, ToolParam, ToolResultBlockParam

from toolproof.model.transcript import Usage
from toolproof.providers.base import Message, ModelReply, ModelRequest, ProviderError, ToolSpec, ToolUse
from toolproof.providers.sdk_provider import SdkProvider

SILENT_FAILURE = "(the tool failed with no output)"


def wire_messages(messages: tuple[Message, ...]) -> list[MessageParam]:
    """The conversation as Messages API turns: `tool` messages become user `tool_result` blocks; a message
    with no content to send is left out."""
    turns: list[tuple[str, list[ContentBlockParam]]] = []
    for message in messages:
        role = "assistant" if message.role == "assistant" else "user"
        blocks = _blocks(message)
        if not blocks:
            continue
        if turns and turns[-1][0] == role:
            turns[-1][1].extend(blocks)
        else:
            turns.append((role, blocks))
    wired: list[MessageParam] = []
    for role, blocks in turns:
        if role == "assistant":
            wired.append({"role": "assistant", "content": blocks})
        else:
            wired.append({"role": "user", "content": blocks})
    return wired


def _blocks(message: Message) -> list[ContentBlockParam]:
    """The content blocks of one message; never a text block that is empty or only whitespace."""
    if message.role == "tool":
        return [_tool_result(message)]
    blocks: list[ContentBlockParam] = []
    if message.text.strip():
        blocks.append({"type": "text", "text": message.text})
    for use in message.tool_uses:
        blocks.append({"type": "tool_use", "id": use.id, "name": use.name, "input": use.arguments})
    return blocks


def _tool_result(message: Message) -> ToolResultBlockParam:
    """A tool message as a `tool_result` block: blank output goes without content, except that a failed
    tool's result must have some (the API requires it)."""
    result: ToolResultBlockParam = {"type": "tool_result", "tool_use_id": message.tool_use_id or ""}
    content = message.text if message.text.strip() else SILENT_FAILURE if message.is_error else ""
    if content:
        result["content"] = content
    if message.is_error:
        result["is_error"] = True
    return result


def wire_tools(tools: tuple[ToolSpec, ...]) -> list[ToolParam]:
    """Tool specs as custom tools."""
    wired: list[ToolParam] = []
    for tool in tools:
        schema: Any = tool.input_schema
        spec: ToolParam = {"name": tool.name, "input_schema": schema}
        if tool.description:
            spec["description"] = tool.description
        wired.append(spec)
    return wired


def read_reply(message: anthropic.types.Message) -> ModelReply:
    """A Messages API answer as a ModelReply: its text blocks joined, its tool uses, its usage."""
    texts: list[str] = []
    uses: list[ToolUse] = []
    for block in message.content:
        if block.type == "text":
            texts.append(block.text)
        elif block.type == "tool_use":
            uses.append(ToolUse(block.id, block.name, dict(block.input)))
    usage = message.usage
    cached = (usage.cache_creation_input_tokens or 0) + (usage.cache_read_input_tokens or 0)
    return ModelReply(
        text="".join(texts),
        tool_uses=tuple(uses),
        usage=Usage(input_tokens=usage.input_tokens + cached, output_tokens=usage.output_tokens),
        stop_reason=message.stop_reason,
    )


class AnthropicMessagesProvider(SdkProvider[anthropic.AsyncAnthropic]):
    """A Provider over `POST {base_url}/v1/messages`."""

    default_name = "anthropic"
    errors = (anthropic.APIStatusError, anthropic.APIConnectionError)

    def open_client(self, api_key: str, base_url: str | None, timeout: float) -> anthropic.AsyncAnthropic:
        return anthropic.AsyncAnthropic(
            api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0, open_telemetry=False
        )

    async def complete(self, request: ModelRequest) -> ModelReply:
        messages = wire_messages(request.messages)
        if not messages:
            raise ProviderError(f"{self.name} {request.model}: nothing to send, every message is empty")
        tools = wire_tools(request.tools)
        message = await self._dispatcher.send(
            request.model,
            lambda: self._client.messages.create(
                model=request.model,
                max_tokens=request.max_tokens,
                messages=messages,
                system=request.system or anthropic.omit,
                tools=tools or anthropic.omit,
                extra_body=None if request.temperature is None else {"temperature": request.temperature},
            ),
        )
        return read_reply(message)
