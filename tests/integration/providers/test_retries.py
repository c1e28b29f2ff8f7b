"""Retries, their limits and the concurrency bound, for both HTTP adapters against the local wire server."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import anyio
import pytest
from tests.support.llm_wire import LlmWire

from toolproof.providers.anthropic_messages import AnthropicMessagesProvider
from toolproof.providers.base import Message, ModelRequest, ProviderError
from toolproof.providers.openai_chat import OpenAIChatProvider
from toolproof.providers.retry import RetryPolicy

Adapter = OpenAIChatProvider | AnthropicMessagesProvider
REQUEST = ModelRequest("model-x", (Message("user", "hi"),))
KEY = "sk-test-secret-value"


@dataclass
class Sleeps:
    """Records the waits of a RetryPolicy instead of waiting."""

    seconds: list[float] = field(default_factory=list)

    async def __call__(self, delay: float) -> None:
        self.seconds.append(delay)


@dataclass
class Make:
    """Builds the adapter under test against a base URL, with recorded waits."""

    kind: str
    sleeps: Sleeps = field(default_factory=Sleeps)
    made: list[Adapter] = field(default_factory=list)

    def __call__(self, wire_or_url: LlmWire | str, *, attempts: int = 4, concurrency: int = 4) -> Adapter:
        policy = RetryPolicy(max_attempts=attempts, sleep=self.sleeps)
        openai = self.kind == "openai"
        cls: Callable[..., Adapter] = OpenAIChatProvider if openai else AnthropicMessagesProvider
        if isinstance(wire_or_url, LlmWire):
            url = wire_or_url.openai_base_url if openai else wire_or_url.anthropic_base_url
        else:
            url = wire_or_url
        adapter = cls(api_key=KEY, base_url=url, retry=policy, max_concurrency=concurrency)
        self.made.append(adapter)
        return adapter


@pytest.fixture(params=["openai", "anthropic"])
async def make(request: pytest.FixtureRequest) -> AsyncIterator[Make]:
    maker = Make(request.param)
    yield maker
    for adapter in maker.made:
        await adapter.aclose()


async def test_429_and_5xx_are_retried_until_success(llm_wire: LlmWire, make: Make) -> None:
    llm_wire.fail(429)
    llm_wire.fail(500)
    llm_wire.fail(503)
    llm_wire.reply("finally")
    reply = await make(llm_wire).complete(REQUEST)
    assert reply.text == "finally"
    assert len(llm_wire.requests) == 4
    assert len(make.sleeps.seconds) == 3
    first, second, third = make.sleeps.seconds  # exponential backoff from 0.5 s, less up to half as jitter
    assert 0.25 <= first <= 0.5 and 0.5 <= second <= 1.0 and 1.0 <= third <= 2.0


async def test_retry_after_is_honoured(llm_wire: LlmWire, make: Make) -> None:
    llm_wire.fail(429, retry_after="7")
    llm_wire.fail(503, retry_after="0")
    llm_wire.reply("ok")
    assert (await make(llm_wire).complete(REQUEST)).text == "ok"
    assert make.sleeps.seconds == [7.0, 0.0]


async def test_exhausted_retries_name_provider_model_status_and_message(
    llm_wire: LlmWire, make: Make
) -> None:
    llm_wire.fail(429, times=3, message="Rate limit reached for requests")
    llm_wire.reply("never seen")
    with pytest.raises(ProviderError) as caught:
        await make(llm_wire, attempts=3).complete(REQUEST)
    assert str(caught.value) == (
        f"{make.kind} model 'model-x': HTTP 429: Rate limit reached for requests (gave up after 3 attempts)"
    )
    assert len(llm_wire.requests) == 3  # the SDK's own retries are off: one HTTP request per attempt
    assert llm_wire.pending == 1


async def test_client_errors_are_not_retried(llm_wire: LlmWire, make: Make) -> None:
    llm_wire.fail(401, message="invalid x-api-key")
    llm_wire.reply("never seen")
    with pytest.raises(ProviderError, match=f"^{make.kind} model 'model-x': HTTP 401: invalid x-api-key$"):
        await make(llm_wire).complete(REQUEST)
    assert len(llm_wire.requests) == 1
    assert make.sleeps.seconds == []


async def test_the_api_key_never_appears_in_an_error(llm_wire: LlmWire, make: Make) -> None:
    llm_wire.fail(401, message=f"Incorrect API key provided: {KEY}")
    with pytest.raises(ProviderError) as caught:
        await make(llm_wire).complete(REQUEST)
    assert KEY not in str(caught.value)
    assert "Incorrect API key provided: ***" in str(caught.value)


async def test_connection_errors_are_retried(make: Make) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    suffix = "/v1" if make.kind == "openai" else ""
    with pytest.raises(ProviderError) as caught:
        await make(f"http://127.0.0.1:{port}{suffix}", attempts=2).complete(REQUEST)
    message = str(caught.value)
    assert message.startswith(f"{make.kind} model 'model-x': no response: ")
    assert message.endswith("(gave up after 2 attempts)")
    assert len(make.sleeps.seconds) == 1


async def test_concurrency_is_bounded(llm_wire: LlmWire, make: Make) -> None:
    for index in range(5):
        llm_wire.reply(f"answer {index}", delay=0.3)  # held open so that requests overlap
    adapter = make(llm_wire, concurrency=2)
    texts: list[str] = []

    async def one() -> None:
        texts.append((await adapter.complete(REQUEST)).text)

    async with anyio.create_task_group() as group:
        for _ in range(5):
            group.start_soon(one)
    assert sorted(texts) == [f"answer {index}" for index in range(5)]
    assert llm_wire.max_in_flight == 2
