"""Shrinking: the smallest input that still makes a tool crash, found greedily as hypothesis does.

`shrink` tries candidates smaller than the current input (`size`) in a fixed order: drop an object key or
array items, shorten a string (then make it plain `a`s), move a number towards 0, and the same inside
nested values. The first candidate that still fails becomes the current input and the search
starts over, until no candidate fails or `budget` attempts have been made. Deterministic for a
deterministic server.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

MAX_ELEMENT_CANDIDATES = 16


def size(value: Any) -> tuple[int, float]:
    """How big `value` is: its compact JSON length, then its `weight` (so plain `a`s are smaller than
    other characters, and 5 smaller than 9)."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)), weight(value)


def weight(value: Any) -> float:
    """Code points of its strings plus magnitudes of its numbers, over the whole value."""
    if isinstance(value, str):
        return float(sum(map(ord, value)))
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return abs(float(value))
    if isinstance(value, dict):
        return sum(weight(key) + weight(item) for key, item in value.items())
    if isinstance(value, list):
        return sum(weight(item) for item in value)
    return 0.0


def candidates(value: Any) -> Iterator[Any]:
    """Simpler variants of `value`, roughly biggest reduction first (not all of them smaller)."""
    if isinstance(value, dict):
        keys = list(value)
        for key in keys:
            yield {k: v for k, v in value.items() if k != key}
        for key in keys[:MAX_ELEMENT_CANDIDATES]:
            for smaller in candidates(value[key]):
                yield {**value, key: smaller}
    elif isinstance(value, list):
        if value:
            yield []
            half = len(value) // 2
            if half:
                yield value[:half]
                yield value[half:]
        for index in range(min(len(value), MAX_ELEMENT_CANDIDATES)):
            yield value[:index] + value[index + 1 :]
        for index in range(min(len(value), MAX_ELEMENT_CANDIDATES)):
            for smaller in candidates(value[index]):
                yield [*value[:index], smaller, *value[index + 1 :]]
    elif isinstance(value, str):
        yield from _shorter(value)
    elif isinstance(value, bool):
        return
    elif isinstance(value, int):
        if value:
            yield 0
            yield value // 2 if value > 0 else -((-value) // 2)
            yield value - 1 if value > 0 else value + 1
    elif isinstance(value, float) and value:
        yield 0
        yield int(value)
        yield value / 2


def _shorter(text: str) -> Iterator[str]:
    """Prefixes from the shortest up (0, 1, 2, 4, ... characters), then cuts of 1/4, 1/8, ... from the end,
    then one character off either end: a length threshold is found in logarithmically many steps."""
    length = len(text)
    size = 0
    while size < length:
        yield text[:size]
        size = size * 2 if size else 1
    cut = length // 4
    while cut > 1:
        yield text[: length - cut]
        cut //= 2
    if text:
        yield text[1:]
        yield text[:-1]
        yield "a" * length


async def shrink(
    value: Any,
    still_fails: Callable[[Any], Awaitable[bool]],
    *,
    budget: int,
    stop: Callable[[], bool] = lambda: False,
) -> tuple[Any, int]:
    """The smallest failing variant of `value` found within `budget` attempts (fewer once `stop()` says
    so), and the attempts made."""
    current, attempts = value, 0
    improved = True
    while improved and attempts < budget and not stop():
        improved = False
        current_size = size(current)
        tried: set[str] = set()
        for candidate in candidates(current):
            key = json.dumps(candidate, sort_keys=True, default=str)
            if size(candidate) >= current_size or key in tried:
                continue
            tried.add(key)
            if attempts >= budget or stop():
                break
            attempts += 1
            if await still_fails(candidate):
                current, improved = candidate, True
                break
    return current, attempts
