"""The turns of `run/side_by_side.py`: read-only cases of an identity together, any other alone, first come
first served; a case whose server sees its own fixture copy, or starts none, never waits."""

from __future__ import annotations

import os
from pathlib import Path

import anyio

from toolproof.model.server_case import Case, SourceRef, ToolsBlock, TrajectoryBlock
from toolproof.model.server_config import ServerConfig
from toolproof.run.side_by_side import SideBySide, _Turns
from toolproof.sources.options import ServerOptions

OPTIONS = ServerOptions(environ=dict(os.environ))


def case(name: str, *, args: tuple[str, ...] = ("server.py",), **fields: object) -> Case:
    server = ServerConfig(command="python", args=list(args))
    source = SourceRef(file=Path(f"{name}.yaml"))
    return Case(name=name, source=source, server=server, **{"block": ToolsBlock(), **fields})  # type: ignore[arg-type]


async def test_readers_share_a_writer_waits_for_them_and_later_readers_wait_for_it() -> None:
    turns, order = _Turns(), []
    await turns.enter(False)
    await turns.enter(False)  # a second reader at once

    async def writer() -> None:
        await turns.enter(True)
        order.append("writer")
        turns.leave(True)

    async def late_reader() -> None:
        await turns.enter(False)
        order.append("late reader")
        turns.leave(False)

    async with anyio.create_task_group() as group:
        group.start_soon(writer)
        await anyio.wait_all_tasks_blocked()
        group.start_soon(late_reader)
        await anyio.wait_all_tasks_blocked()
        assert order == []  # the writer waits for both readers, the late reader behind the writer
        turns.leave(False)
        turns.leave(False)
    assert order == ["writer", "late reader"]


async def test_a_waiter_that_is_cancelled_leaves_the_queue() -> None:
    turns = _Turns()
    await turns.enter(True)
    with anyio.move_on_after(0.01):
        await turns.enter(True)
    assert not turns.waiting
    turns.leave(True)
    await turns.enter(False)  # free again


async def test_listing_cases_of_one_server_run_side_by_side_without_asking_it() -> None:
    first, second = case("a"), case("b")
    side_by_side = SideBySide([first, second], OPTIONS)
    async with side_by_side.turn(first), side_by_side.turn(second):  # no server to ask: python server.py
        assert not side_by_side.alone(first) and not side_by_side.alone(second)


async def test_cases_whose_servers_see_their_own_fixture_copy_never_wait() -> None:
    cases = [case(name, isolate=True, args=("server.py", "--root", "{{fixture}}")) for name in "ab"]
    side_by_side = SideBySide(cases, OPTIONS)
    async with side_by_side.turn(cases[0]), side_by_side.turn(cases[1]):
        pass


async def test_cases_that_start_no_server_never_wait() -> None:
    cases = [case(name, isolate=True, block=TrajectoryBlock(checks=[], audit_log="log")) for name in "ab"]
    side_by_side = SideBySide(cases, OPTIONS)
    async with side_by_side.turn(cases[0]), side_by_side.turn(cases[1]):
        pass


async def test_cases_that_may_write_run_alone() -> None:
    first, second = case("a", isolate=True), case("b", isolate=True)
    side_by_side = SideBySide([first, second], OPTIONS)
    async with side_by_side.turn(first):
        assert side_by_side.alone(first)
        with anyio.move_on_after(0.05) as waited:
            async with side_by_side.turn(second):
                pass
        assert waited.cancelled_caught
