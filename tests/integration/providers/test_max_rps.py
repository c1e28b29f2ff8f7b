"""`--max-rps`: each provider of a run starts at most N requests a second, shared by every case asking for it
(the pool hands them one paced provider); checked with a fake clock, then against the local model server."""

from __future__ import annotations

import time

import anyio
import pytest
from tests.support.llm_wire import LlmWire

from toolproof.cli import main
from toolproof.providers.base import Message, ModelRequest
from toolproof.providers.pacing import Paced, Pacer
from toolproof.run.providers import ProviderConfig, ProviderPool

REQUEST = ModelRequest("m", (Message("user", "hi"),))


async def test_the_pacer_spaces_starts_in_arrival_order() -> None:
    now = [100.0]
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(round(seconds, 6))

    pacer = Pacer(4.0, clock=lambda: now[0], sleep=sleep)
    for _ in range(4):  # four callers at the same moment: 0, 0.25, 0.5 and 0.75 s from now
        await pacer.wait()
    assert slept == [0.25, 0.5, 0.75]
    now[0] = 200.0  # long after: no wait
    await pacer.wait()
    assert slept == [0.25, 0.5, 0.75]


def _config(wire: LlmWire, model: str) -> ProviderConfig:
    return ProviderConfig(kind="openai", model=model, base_url=wire.openai_base_url, api_key_env="RPS_KEY")


async def test_every_case_asking_for_a_provider_shares_its_rate(llm_wire: LlmWire) -> None:
    pool = ProviderPool({"RPS_KEY": "sk-rps"}, max_rps={"*": 10})
    provider = pool.get(_config(llm_wire, "m"))
    assert isinstance(provider, Paced) and pool.get(_config(llm_wire, "m")) is provider
    for _ in range(5):
        llm_wire.reply("ok")
    started = time.monotonic()
    async with anyio.create_task_group() as group:
        for _ in range(5):  # five cases at once, each asking the pool on its own
            group.start_soon(pool.get(_config(llm_wire, "m")).complete, REQUEST)
    assert time.monotonic() - started >= 0.4  # starts 0.1 s apart: the fifth at 0.4 s at the earliest
    assert llm_wire.pending == 0
    other = pool.get(_config(llm_wire, "other"))
    assert isinstance(other, Paced) and other is not provider  # another provider, its own rate
    await pool.aclose()


async def test_without_a_rate_for_its_kind_the_pool_hands_out_the_provider_itself(llm_wire: LlmWire) -> None:
    for limits in (None, {"anthropic": 1.0}):
        pool = ProviderPool({"RPS_KEY": "sk-rps"}, max_rps=limits)
        assert not isinstance(pool.get(_config(llm_wire, "m")), Paced)
        await pool.aclose()
    pool = ProviderPool({"RPS_KEY": "sk-rps"}, max_rps={"openai": 2.0, "*": 1.0})
    paced = pool.get(_config(llm_wire, "m"))
    assert isinstance(paced, Paced) and paced.pacer.interval == 0.5  # its kind's own rate wins over `*`
    await pool.aclose()


def test_max_rps_values_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    for value, message in [
        ("0", "got '0'"),
        ("openia=2", "unknown provider kind 'openia'"),
        ("x", "got 'x'"),
    ]:
        with pytest.raises(SystemExit) as stopped:
            main(["eval", "cases", "--max-rps", value])
        assert stopped.value.code == 2
        assert message in capsys.readouterr().err
