"""Release results in their file order although they finish in any order."""

from __future__ import annotations

from typing import Generic, TypeVar

T = TypeVar("T")


class InOrder(Generic[T]):
    """Buffers items by 0-based index and releases the longest consecutive run that is complete."""

    def __init__(self) -> None:
        self._next = 0
        self._waiting: dict[int, T] = {}

    def add(self, index: int, item: T) -> list[T]:
        """Take item `index`; return the items now ready, in order (a late or repeated index at once)."""
        if index < self._next:
            return [item]
        self._waiting[index] = item
        ready: list[T] = []
        while self._next in self._waiting:
            ready.append(self._waiting.pop(self._next))
            self._next += 1
        return ready

    def rest(self) -> list[T]:
        """Everything still waiting (its predecessors never came), in index order; empties the buffer."""
        ready = [self._waiting[index] for index in sorted(self._waiting)]
        self._waiting.clear()
        return ready
