"""`--shard K/N`: one of N disjoint parts of a suite, so N machines can run it together.

A case's shard is a SHA-256 hash of its node id, with the file written relative to the working directory,
modulo N: the same split on every machine and every run, and adding a case moves only that case. A case goes
to one shard whole, with all its trials. `Sharded` is what a shard's reports record so that `toolproof
report` can merge them back into the order one unsharded run gives.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from toolproof.load.errors import LoadError
from toolproof.load.selection import SelectionError
from toolproof.model.envelope import CaseEnvelope

T = TypeVar("T", bound=CaseEnvelope | LoadError)
_SPELLING = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


@dataclass(frozen=True)
class Shard:
    """Shard `index` (1-based) of `total`."""

    index: int
    total: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """`K/N` with 1 <= K <= N; raises SelectionError otherwise."""
        match = _SPELLING.fullmatch(text)
        if match is None:
            raise SelectionError(f"--shard {text!r}: expected K/N, e.g. 2/5")
        index, total = int(match[1]), int(match[2])
        if not 1 <= index <= total:
            raise SelectionError(f"--shard {text!r}: K must be from 1 to N")
        return cls(index, total)

    def holds(self, key: str) -> bool:
        """Whether the case of shard key `key` (`shard_key`) belongs to this shard."""
        digest = hashlib.sha256(key.encode("utf-8")).digest()
        return int.from_bytes(digest[:8], "big") % self.total == self.index - 1

    def __str__(self) -> str:
        return f"{self.index}/{self.total}"


@dataclass(frozen=True)
class Sharded:
    """A shard taken from a selection: which shard, and the ids (`file::name`) of every selected item of the
    whole suite in run order, which its reports record."""

    shard: Shard
    order: tuple[str, ...]

    @property
    def empty_note(self) -> str | None:
        """The line an empty shard of a non-empty suite prints (None otherwise)."""
        return None if not self.order else f"shard {self.shard} held no case (of {len(self.order)})"


def shard_key(file: Path, name: str) -> str:
    """The id a case is hashed by: `file::name`, the file relative to the working directory when under it,
    with forward slashes, so every checkout and platform computes the same shard."""
    if file.is_absolute() and file.is_relative_to(Path.cwd()):
        file = file.relative_to(Path.cwd())
    return f"{file.as_posix()}::{name}"


def report_id(file: Path, name: str) -> str:
    """A case's id as the JSON report writes its results' `file` and `name` (`file::name`)."""
    return f"{file.as_posix()}::{name}"


def reported_as(item: CaseEnvelope | LoadError) -> tuple[Path, str]:
    """The file and the name a case's results (or a load error's result) are reported under."""
    if isinstance(item, LoadError):
        return item.file, f"{item.case_name} (load error)"
    return item.source.file, item.name


def take_shard(items: Sequence[T], shard: Shard | None) -> tuple[list[T], Sharded | None]:
    """The cases and load errors of `shard` (all of them without one), and what the shard's reports
    record."""
    if shard is None:
        return list(items), None
    taken = [item for item in items if shard.holds(shard_key(*reported_as(item)))]
    return taken, Sharded(shard, run_order(items))


def run_order(items: Sequence[CaseEnvelope | LoadError]) -> tuple[str, ...]:
    """The ids (`file::name`) the results of `items` are reported under, in order."""
    return tuple(report_id(*reported_as(item)) for item in items)


def unfinished(items: Sequence[T], finished: frozenset[str]) -> list[T]:
    """The items whose results are not among `finished` (ids as `run_order` gives them), for `--resume`."""
    return [item for item in items if report_id(*reported_as(item)) not in finished]
