"""Results of servers probed side by side come out server by server, whatever order they finish in."""

from __future__ import annotations

from toolproof.probe.side_by_side import ServerOrder


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
