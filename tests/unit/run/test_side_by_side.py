"""The turns of `run/side_by_side.py`: the cases of one server identity keep the suite's order, read-only
ones run together, any other alone; a case whose server sees its own fixture copy, or that starts no
server, never waits."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from toolproof.model.server_case import (
    AssertBlock,
    Case,
    ResourcesBlock,
    SamplingBlock,
    SetupStep,
    SourceRef,
    ToolsBlock,
    TrajectoryBlock,
)
from toolproof.model.server_config import ServerConfig
from toolproof.run.side_by_side import SideBySide, may_write
from toolproof.sources.options import ServerOptions

OPTIONS = ServerOptions(environ=dict(os.environ))


def case(name: str, *, args: tuple[str, ...] = ("server.py",), **fields: object) -> Case:
    """A case on `python server.py` (never started: a listing needs no declarations, `isolate` runs alone)."""
    server = ServerConfig(command="python", args=list(args))
    source = SourceRef(file=Path(f"{name}.yaml"))
    return Case(name=name, source=source, server=server, **{"block": ToolsBlock(), **fields})  # type: ignore[arg-type]


async def test_read_only_cases_run_together_and_a_writer_waits_its_turn_in_suite_order() -> None:
    r1, r2, w, r3 = case("r1"), case("r2"), case("w", isolate=True), case("r3")
    side_by_side = SideBySide([r1, r2, w, r3], OPTIONS)
    order: list[str] = []

    async def run(item: Case) -> None:
        async with side_by_side.turn(item):
            order.append(f"{item.name} starts")
            await anyio.sleep(0.05)
            order.append(f"{item.name} ends")

    async with anyio.create_task_group() as group:
        for item in (r3, w, r2, r1):  # arriving in any order
            group.start_soon(run, item)
    assert order[:2] == ["r2 starts", "r1 starts"] or order[:2] == ["r1 starts", "r2 starts"]
    assert order[4:] == ["w starts", "w ends", "r3 starts", "r3 ends"]
    assert side_by_side.alone(w) and not side_by_side.alone(r1)


async def test_an_identity_takes_at_least_its_writers_one_by_one_and_its_readers_side_by_side() -> None:
    r1, r2, w, r3 = case("r1"), case("r2"), case("w", isolate=True), case("r3")
    seconds = {"r1": 1.0, "r2": 3.0, "w": 2.0, "r3": 0.5}
    side_by_side = SideBySide([r1, r2, w, r3], OPTIONS)
    assert side_by_side.critical_path([r1, r2, w, r3], lambda item: seconds[item.name]) == 6.5  # undecided
    async with side_by_side.running():
        await side_by_side.declare_all()
    assert side_by_side.critical_path([r1, r2, w, r3], lambda item: seconds[item.name]) == 3.0 + 2.0 + 0.5


async def test_cases_whose_servers_see_their_own_fixture_copy_never_wait() -> None:
    cases = [case(name, isolate=True, args=("server.py", "--root", "{{fixture}}")) for name in "ab"]
    side_by_side = SideBySide(cases, OPTIONS)
    assert side_by_side.fellows(cases[0]) == []
    async with side_by_side.turn(cases[1]), side_by_side.turn(cases[0]):
        pass


async def test_cases_that_start_no_server_never_wait() -> None:
    cases = [case(name, isolate=True, block=TrajectoryBlock(checks=[], audit_log="log")) for name in "ab"]
    side_by_side = SideBySide(cases, OPTIONS)
    async with side_by_side.turn(cases[1]), side_by_side.turn(cases[0]):
        pass


async def test_a_later_writer_waits_for_an_earlier_one_that_has_not_started() -> None:
    first, second = case("a", isolate=True), case("b", isolate=True)
    side_by_side = SideBySide([first, second], OPTIONS)
    assert side_by_side.fellows(second) == [first, second]
    with anyio.move_on_after(0.05) as waited:
        async with side_by_side.turn(second):
            pass
    assert waited.cancelled_caught
    async with side_by_side.turn(first):
        pass
    async with side_by_side.turn(second):
        pass


@pytest.mark.parametrize(
    ("fields", "writers", "writes"),
    [
        ({"isolate": True}, set(), True),
        ({"block": ResourcesBlock(read="memo://notes", subscribe="memo://notes")}, None, False),
        ({"block": AssertBlock(tool="get")}, {"put"}, False),
        ({"block": AssertBlock(tool="gone")}, {"put"}, False),  # not listed: the server cannot run it
        ({"block": AssertBlock(tool="put")}, {"put"}, True),
        ({"block": AssertBlock(tool="get")}, None, True),  # the listing failed: any tool may write
        ({"block": SamplingBlock(tool="put")}, {"put"}, True),
        ({"block": ToolsBlock(), "setup": [SetupStep(tool="put")]}, {"put"}, True),
    ],
)
def test_a_case_writes_when_it_is_isolated_or_calls_a_listed_tool_not_declared_read_only(
    fields: dict[str, object], writers: set[str] | None, writes: bool
) -> None:
    assert may_write(case("c", **fields), writers) is writes
