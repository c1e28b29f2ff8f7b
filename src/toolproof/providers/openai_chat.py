"""OpenAI-compatible Chat Completions through the official `openai` SDK.

`base_url` points the adapter at any server that speaks the format (OpenAI, Azure-style gateways, vLLM,
Ollama, LM Studio, ...). Tools are offered as `function` tools; a `tool` message carries a tool's result (the
format has no error flag, so a failed tool's text is sent as it is). The reply cap is sent as
`max_completion_tokens`, which current OpenAI models require and compatible servers accept or ignore.

A tool call whose `arguments` are not a JSON object is a `ProviderError` naming the tool and showing the text
(empty arguments count as `{}`): the loop cannot call a tool with arguments it cannot read.
"""

from __future__ import annotations

import json
from typing import Any

import openai
from openai.types.chat import (
    ChatCompletion,
    ChatCompletionFunctionToolParam,
    ChatCompletionMessageFunctionToolCallParam,
    ChatCompletionMessageParam,
)
from openai.types.chat.chat_completion_message_function_tool_call import Function
from openai.types.shared_params import FunctionDefinition

from toolproof.model.transcript import Usage
from toolproof.providers.base import Message, ModelReply, ModelRequest, ProviderError, ToolSpec, ToolUse
from toolproof.providers.sdk_provider import SdkProvider


def wire_messages(request: ModelRequest) -> list[ChatCompletionMessageParam]:
    """The request's system prompt and messages as Chat Completions messages."""
    messages: list[ChatCompletionMessageParam] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    messages.extend(_message(message) for message in request.messages)
    return messages


def _message(message: Message) -> ChatCompletionMessageParam:
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_use_id or "", "content": message.text}
    if message.role == "user":
        return {"role": "user", "content": message.text}
    calls: list[ChatCompletionMessageFunctionToolCallParam] = [
        {
            "id": use.id,
            "type": "function",
            "function": {"name": use.name, "arguments": json.dumps(use.arguments)},
        }
        for use in message.tool_uses
    ]
    if calls:
        return {"role": "assistant", "content": message.text or None, "tool_calls": calls}
    return {"role": "assistant", "content": message.text}


def wire_tools(tools: tuple[ToolSpec, ...]) -> list[ChatCompletionFunctionToolParam]:
    """Tool specs as `function` tools."""
    wired: list[ChatCompletionFunctionToolParam] = []
    for tool in tools:
        function: FunctionDefinition = {"name": tool.name, "parameters": tool.input_schema}
        if tool.description:
            function["description"] = tool.description
        wired.append({"type": "function", "function": function})
    return wired


def read_reply(completion: ChatCompletion, where: str) -> ModelReply:
    """The first choice of `completion` as a ModelReply; `where` (provider and model) prefixes errors."""
    if not completion.choices:
        raise ProviderError(f"{where}: the response has no choices")
    choice = completion.choices[0]
    uses = []
    for call in choice.message.tool_calls or ():
        if call.type != "function":
            raise ProviderError(f"{where}: unsupported tool call type {call.type!r}")
        uses.append(ToolUse(call.id, call.function.name, _arguments(where, call.function)))
    usage = completion.usage
    return ModelReply(
        text=choice.message.content or "",
        tool_uses=tuple(uses),
        usage=Usage(
            input_tokens=usage.prompt_tokens,
            output_tokens=usage.completion_tokens,
            total_tokens=usage.total_tokens,
        )
        if usage
        else None,
        stop_reason=choice.finish_reason,
    )


def _arguments(where: str, function: Function) -> dict[str, Any]:
    text = function.arguments
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        value = None
    if not isinstance(value, dict):
        shown = text if len(text) <= 200 else text[:200] + "…"
        raise ProviderError(
            f"{where}: the model called {function.name!r} with arguments that are not a JSON object: {shown}"
        )
    return value


class OpenAIChatProvider(SdkProvider[openai.AsyncOpenAI]):
    """A Provider over `POST {base_url}/chat/completions`."""

    default_name = "openai"
    errors = (openai.APIStatusError, openai.APIConnectionError)

    def open_client(self, api_key: str, base_url: str | None, timeout: float) -> openai.AsyncOpenAI:
        return openai.AsyncOpenAI(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0)

    async def complete(self, request: ModelRequest) -> ModelReply:
        messages = wire_messages(request)
        tools = wire_tools(request.tools)
        completion = await self._dispatcher.send(
            request.model,
            lambda: self._client.chat.completions.create(
                model=request.model,
                messages=messages,
                tools=tools or openai.omit,
                max_completion_tokens=request.max_tokens,
                temperature=openai.omit if request.temperature is None else request.temperature,
            ),
        )
        return read_reply(completion, f"{self.name} model {request.model!r}")
