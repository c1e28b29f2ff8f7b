"""Whole numbers as the files and traces toolproof reads write them."""

from __future__ import annotations

from typing import Any


def integer(value: Any) -> int | None:
    """An int, a float with no fraction, or a string of ASCII digits as an int; None for anything else
    (booleans included)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value.strip())
    return None
