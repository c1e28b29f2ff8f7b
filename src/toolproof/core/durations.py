"""Go `time.ParseDuration`, plus a bare number meaning seconds."""

from __future__ import annotations

import re
from fractions import Fraction

_UNIT_NS = {
    "ns": 1,
    "us": 10**3,
    "µs": 10**3,
    "μs": 10**3,
    "ms": 10**6,
    "s": 10**9,
    "m": 60 * 10**9,
    "h": 3600 * 10**9,
}
_TERM = re.compile(r"(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
_DURATION = re.compile(rf"[-+]?(?:{_TERM.pattern})+")
_SECONDS = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)")
_MAX_NS = 2**63 - 1


def parse_duration(text: str) -> float:
    """Seconds in `text`: "30s", "1m30s", "1.5h", "500ms", "0", or a bare number of seconds ("2.5").

    Raises ValueError for anything else, or for a duration outside Go's int64 nanosecond range.
    """
    text = text.strip()
    if _SECONDS.fullmatch(text):
        return float(text)
    if not _DURATION.fullmatch(text):
        raise ValueError(f"invalid duration {text!r} (use e.g. 30s, 1m30s, 500ms, 2h)")
    nanoseconds = sum(Fraction(number) * _UNIT_NS[unit] for number, unit in _TERM.findall(text))
    if nanoseconds > _MAX_NS:
        raise ValueError(f"duration {text!r} is out of range")
    seconds = float(nanoseconds / 10**9)
    return -seconds if text.startswith("-") else seconds
