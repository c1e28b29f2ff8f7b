"""Volatile values in a server's answer (dates and weekdays, UUIDs, hex ids, temporary paths), replaced by
placeholders so that two answers that differ only there compare equal.

Built-in masks cover the common cases; a case adds its own patterns (Python `regex` syntax) under
`snapshot_masks:`. Every pattern runs with a time bound, so a pattern from a file cannot hang a run.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import regex

MASK_TIMEOUT_S = 1.0


@dataclass(frozen=True)
class Mask:
    """Matches of `pattern` are replaced by `<name>`."""

    name: str
    pattern: str


class MaskError(ValueError):
    """A user pattern that does not compile, or that ran out of time."""


def _temp_roots() -> str:
    usual = ("/tmp", "/var/tmp", "/private/tmp", "/var/folders", "/private/var/folders")  # noqa: S108 - masked
    roots = {*usual, tempfile.gettempdir()}
    return "|".join(regex.escape(root) for root in sorted(roots, key=len, reverse=True))


BUILTIN_MASKS: tuple[Mask, ...] = (
    Mask(
        "datetime",
        r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b",
    ),
    Mask(
        "date",
        r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun),? (?:\d{1,2} )?"
        r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)(?: \d{1,2})?,? \d{4}\b",
    ),
    Mask("time", r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b"),
    Mask("weekday", r"\b(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\b"),
    Mask("uuid", r"\b[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\b"),
    Mask("hex", r"\b(?:0x)?(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{12,}\b"),
    Mask("hex", r"\b(?:0x)?(?=[0-9A-F]*[0-9])(?=[0-9A-F]*[A-F])[0-9A-F]{12,}\b"),
    Mask("tmp", rf"(?<![\w./-])(?:{_temp_roots()})(?:/[^/\s\"'`,;:)\]}}>]*)?"),
)


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> regex.Pattern[str]:
    try:
        return regex.compile(pattern)
    except regex.error as error:
        raise MaskError(f"snapshot mask {pattern!r} does not compile: {error}") from None


def check_pattern(pattern: str) -> str | None:
    """Why `pattern` cannot be used as a mask, or None."""
    try:
        _compiled(pattern)
    except MaskError as error:
        return str(error)
    return None


def mask(text: str, extra: Sequence[str] = ()) -> str:
    """`text` with the built-in masks and the `extra` patterns applied, in that order.

    Raises MaskError for an extra pattern that does not compile or takes longer than MASK_TIMEOUT_S.
    """
    masks = [*BUILTIN_MASKS, *(Mask("masked", pattern) for pattern in extra)]
    for item in masks:
        try:
            text = _compiled(item.pattern).sub(f"<{item.name}>", text, timeout=MASK_TIMEOUT_S)
        except TimeoutError:
            raise MaskError(f"snapshot mask {item.pattern!r} took longer than {MASK_TIMEOUT_S:g}s") from None
    return text


def is_volatile(text: str) -> bool:
    """Whether a built-in mask matches anywhere in `text`."""
    return mask(text) != text
