"""The keys a loader's reader method accepts in a mapping, read off the method itself: it runs on an empty
mapping with a `Reader` that records the keys it is asked to allow and require. A schema built from them
cannot list other keys than the loader reads, and a key added to a reader needs no second list here."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from toolproof.load.reader import Reader
from toolproof.load.yaml_source import KeyPath


@dataclass(frozen=True)
class Accepted:
    """The keys a mapping may hold, and those it must."""

    keys: tuple[str, ...]
    required: tuple[str, ...]


class _Recording(Reader):
    """A reader that records its `keys` calls and reads nothing further (every check of keys fails)."""

    def __init__(self) -> None:
        self.errors = []
        self.asked: list[Accepted] = []

    def keys(
        self, data: Mapping[str, Any], path: KeyPath, allowed: Iterable[str], required: Iterable[str] = ()
    ) -> bool:
        self.asked.append(Accepted(tuple(sorted(set(allowed))), tuple(sorted(set(required)))))
        return False

    def fail(self, path: KeyPath, message: str, hint: str | None = None) -> None:
        """Nothing is read here, so nothing is wrong."""


def accepted(read: Callable[[Reader], object]) -> Accepted:
    """The keys `read` (a reader method applied to an empty mapping, given the reader) asks its reader to
    check; raises when it asks not exactly once."""
    recording = _Recording()
    read(recording)
    if len(recording.asked) != 1:
        raise ValueError(f"expected one check of keys, the reader made {len(recording.asked)}")
    return recording.asked[0]
