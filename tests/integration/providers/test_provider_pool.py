"""The provider pool: one provider per distinct configuration, so everything using an equal configuration
shares its concurrency limit; checked against the local model server."""

from __future__ import annotations

import anyio
from tests.support.llm_wire import LlmWire

from toolproof.providers.base import Message, ModelRequest
from toolproof.run.providers import ProviderConfig, ProviderPool


def config(wire: LlmWire, **limits: object) -> ProviderConfig:
    return ProviderConfig.model_validate(
        {
            "kind": "openai",
            "model": "m",
            "base_url": wire.openai_base_url,
            "api_key_env": "POOL_PASS",
            **limits,
        }
    )


async def test_equal_configurations_share_one_provider_and_its_limit(llm_wire: LlmWire) -> None:
    pool = ProviderPool({"POOL_PASS": "sk-pool"})
    first = pool.get(config(llm_wire, max_concurrency=1))
    assert pool.get(config(llm_wire, max_concurrency=1)) is first
    assert pool.get(config(llm_wire, max_concurrency=2)) is not first
    for _ in range(3):
        llm_wire.reply("ok", delay=0.2)
    async with anyio.create_task_group() as group:
        for _ in range(3):  # three callers, each asking for the provider on its own
            provider = pool.get(config(llm_wire, max_concurrency=1))
            group.start_soon(provider.complete, ModelRequest("m", (Message("user", "hi"),)))
    assert llm_wire.max_in_flight == 1
    await pool.aclose()
