"""Servers probed side by side: their results come out server by server, whatever order they finish in,
and a server known to be slow gets a head start."""

from __future__ import annotations

from collections.abc import Callable

import anyio

from toolproof.probe.side_by_side import ServerOrder, each_server


def test_the_first_server_streams_and_later_ones_wait_for_it() -> None:
    seen: list[str] = []
    order: ServerOrder[str] = ServerOrder(3, seen.append)
    order.add(2, "c1")
    order.add(0, "a1")
    order.add(1, "b1")
    assert seen == ["a1"]  # the first server's results go out at once
    order.finish(2)
    order.add(1, "b2")
    assert seen == ["a1"]
    order.finish(0)
    assert seen == ["a1", "b1", "b2"]  # now the second server streams
    order.add(1, "b3")
    assert seen == ["a1", "b1", "b2", "b3"]
    order.finish(1)
    assert seen == ["a1", "b1", "b2", "b3", "c1"]  # the third had already finished


def test_servers_that_finish_in_reverse_order_still_read_in_order() -> None:
    seen: list[str] = []
    order: ServerOrder[str] = ServerOrder(3, seen.append)
    for server in (2, 1, 0):
        order.add(server, f"s{server}")
        order.finish(server)
    assert seen == ["s0", "s1", "s2"]


def run_servers(lead: int | None, *, lead_says_started: bool = True) -> list[str]:
    """What three probes did, in order, when `lead` starts first."""
    seen: list[str] = []

    async def probe(index: int, started: Callable[[], None]) -> None:
        seen.append(f"start {index}")
        await anyio.sleep(0.01)
        if lead_says_started:
            started()
        await anyio.sleep(0.05 if index == lead else 0)
        seen.append(f"end {index}")

    anyio.run(each_server, 3, probe, lead)
    return seen


def test_every_server_starts_at_once_without_a_lead() -> None:
    assert run_servers(None)[:3] == ["start 0", "start 1", "start 2"]


def test_a_lead_starts_alone_and_the_others_once_it_is_under_way() -> None:
    seen = run_servers(2)
    assert seen[0] == "start 2"
    assert seen.index("start 0") > 0 and seen.index("start 1") > 0
    assert seen[-1] == "end 2"  # the others ran beside it


def test_a_lead_that_ends_without_getting_under_way_lets_the_others_run() -> None:
    seen = run_servers(1, lead_says_started=False)
    assert seen[:2] == ["start 1", "end 1"]
    assert sorted(seen[2:]) == ["end 0", "end 2", "start 0", "start 2"]
