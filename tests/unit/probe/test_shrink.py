"""Shrinking finds a smallest failing input within its budget."""

from __future__ import annotations

from typing import Any

from toolproof.probe.shrink import shrink


async def test_a_length_threshold_is_found_exactly() -> None:
    async def fails(value: Any) -> bool:
        return isinstance(value, dict) and len(str(value.get("name", ""))) > 100

    smallest, attempts = await shrink({"name": "zq" * 5000, "other": [1, 2, 3]}, fails, budget=200)
    assert smallest == {"name": "a" * 101}
    assert attempts < 200


async def test_numbers_move_towards_zero() -> None:
    async def fails(value: Any) -> bool:
        return isinstance(value, dict) and isinstance(value.get("n"), int) and value["n"] >= 7

    smallest, _ = await shrink({"n": 2**31 - 1}, fails, budget=300)
    assert smallest == {"n": 7}


async def test_the_budget_bounds_the_calls() -> None:
    calls = 0

    async def fails(value: Any) -> bool:
        nonlocal calls
        calls += 1
        return "a" in value

    await shrink({"a": "x" * 1000, "b": list(range(100))}, fails, budget=5)
    assert calls == 5


async def test_an_input_nothing_smaller_fails_for_stays() -> None:
    async def fails(value: Any) -> bool:
        return value == {"k": [1, "two"]}

    smallest, _ = await shrink({"k": [1, "two"]}, fails, budget=100)
    assert smallest == {"k": [1, "two"]}


async def test_a_stop_ends_shrinking_between_calls() -> None:
    calls = 0

    async def fails(value: Any) -> bool:
        nonlocal calls
        calls += 1
        return "a" in value

    smallest, attempts = await shrink({"a": "x" * 1000}, fails, budget=100, stop=lambda: calls >= 2)
    assert attempts == calls == 2  # {} passes, {"a": ""} fails, then the stop
    assert smallest == {"a": ""}
