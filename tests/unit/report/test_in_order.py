"""InOrder releases results in file order whatever order they finish in."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from toolproof.report.ordering import InOrder


def test_releases_the_longest_complete_prefix() -> None:
    order: InOrder[str] = InOrder()
    assert order.add(2, "c") == []
    assert order.add(1, "b") == []
    assert order.add(0, "a") == ["a", "b", "c"]
    assert order.add(4, "e") == []
    assert order.add(3, "d") == ["d", "e"]
    assert order.rest() == []


def test_rest_returns_what_waits_behind_a_gap_in_order() -> None:
    order: InOrder[str] = InOrder()
    order.add(5, "f")
    order.add(2, "c")
    assert order.rest() == ["c", "f"]
    assert order.rest() == []


def test_a_late_or_repeated_index_is_released_at_once() -> None:
    order: InOrder[str] = InOrder()
    assert order.add(0, "a") == ["a"]
    assert order.add(0, "again") == ["again"]


@given(st.permutations(list(range(12))))
def test_any_finishing_order_comes_out_sorted(finish: list[int]) -> None:
    order: InOrder[int] = InOrder()
    released = [item for index in finish for item in order.add(index, index)]
    assert released == list(range(12))
