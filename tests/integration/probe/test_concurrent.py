"""Calls in flight together on one server: a slow tool holds up no other, and a crash or hang is still blamed
on the call that caused it (the verdicts of one call at a time)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from tests.integration.probe.conftest import ROOT, TARGET

from toolproof.mcp.spec import ConnectSpec
from toolproof.model.result import FailureKind
from toolproof.model.server_config import Transport
from toolproof.probe.concurrent import Call, call_concurrently
from toolproof.probe.connection import Prober
from toolproof.probe.outcome import CallOutcome

SLOW = ROOT / "tests" / "servers" / "slow_server.py"


def spec(server: Path, *args: str, timeout: float = 2.0) -> ConnectSpec:
    return ConnectSpec(
        transport=Transport.STDIO, command=sys.executable, args=(str(server), *args), request_timeout=timeout
    )


def make(connect: ConnectSpec, calls: list[Call], jobs: int) -> tuple[list[CallOutcome], int, list[int]]:
    """The outcomes, how many servers were started, and the order in which verdicts were final."""
    finished: list[int] = []

    async def go() -> tuple[list[CallOutcome], int]:
        async with Prober(connect) as prober:
            outcomes = await call_concurrently(prober, calls, jobs, lambda index, _: finished.append(index))
            return outcomes, prober.starts

    outcomes, starts = anyio.run(go)
    return outcomes, starts, finished


def kinds(outcomes: list[CallOutcome]) -> list[FailureKind | None]:
    return [outcome.failure.kind if outcome.failure else None for outcome in outcomes]


@pytest.mark.serial
def test_a_slow_tool_holds_up_no_other_and_keeps_its_timeout() -> None:
    calls = [Call("work", {"label": "slow"}), Call("fails_every", {"every": 5}), Call("fails_every", {})]
    outcomes, starts, finished = make(spec(SLOW, "--delay", "6", timeout=2.5), calls, jobs=3)
    assert kinds(outcomes) == [FailureKind.TIMEOUT, None, None]
    assert finished[-1] == 0  # the quick calls were answered while the slow one waited
    assert starts == 1  # answered by a live server, the timeout is the slow call's own: not made again
    alone, alone_starts, _ = make(spec(SLOW, "--delay", "6", timeout=2.5), calls, jobs=1)
    assert kinds(alone) == kinds(outcomes)
    assert alone_starts == 2  # one at a time, the timeout restarts the server


@pytest.mark.parametrize("jobs", [2, 8])
def test_a_crash_or_hang_is_blamed_on_its_own_call(jobs: int) -> None:
    names = ["ok", "crash", "hang", "strict", "traceback", "bad_reply", "counter", "ok", "crash", "ok"]
    calls = [Call(name, {"text": "x"}) for name in names]
    together, _, finished = make(spec(TARGET), calls, jobs)
    alone, _, _ = make(spec(TARGET), calls, jobs=1)
    assert kinds(together) == kinds(alone)
    assert kinds(together)[1:3] == [FailureKind.TRANSPORT, FailureKind.TIMEOUT]
    assert sorted(finished) == list(range(len(names)))
    assert "fatal: tool crash pulled the plug" in together[1].stderr
    for name, outcome in zip(names, together, strict=True):
        if name != "crash" and (outcome.failure or (outcome.result or {}).get("isError")):
            assert "fatal" not in outcome.stderr, name


def test_a_failure_shows_only_what_the_server_wrote_during_its_own_call() -> None:
    calls = [Call("complain", {"label": "slow", "seconds": 3}), Call("complain", {"label": "quick"})]
    outcomes, _, _ = make(spec(SLOW, timeout=10), calls, jobs=2)
    assert [outcome.stderr.strip() for outcome in outcomes] == ["complaint slow", "complaint quick"]


def test_a_fuzz_stopped_while_inputs_are_in_flight_keeps_their_answers(tmp_path: Path) -> None:
    from toolproof.probe.fuzz import FuzzPlan, fuzz_tool
    from toolproof.probe.verdicts import CallClass

    calls = tmp_path / "calls"
    connect = spec(SLOW, "--delay", "0.5", "--calls", str(calls), timeout=10.0)
    tool = {"name": "work", "inputSchema": {"type": "object", "properties": {"label": {"type": "string"}}}}
    probes: list[Any] = []

    async def fuzz() -> None:
        async with Prober(connect) as prober:
            await fuzz_tool(prober, tool, FuzzPlan(seed=1, runs=30), None, probes, 2)

    async def go() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(fuzz)
            # a fifth call was sent once one of the first was answered: stop before the 30 are
            while not calls.exists() or len(calls.read_text().splitlines()) < 5:
                await anyio.sleep(0.05)
            group.cancel_scope.cancel()

    anyio.run(go)
    assert probes, "the answers that came before the stop are kept"
    assert len(probes) < 30
    assert all(probe.outcome is not None and probe.verdict is not CallClass.SKIPPED for probe in probes)
