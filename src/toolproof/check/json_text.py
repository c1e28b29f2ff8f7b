"""Values as the text checks compare and show: compact JSON as JavaScript writes it, and a value cast to a
string."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from datetime import date
from decimal import Decimal
from typing import Any

from toolproof.core.expressions import text_of

_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def compact_json(value: Any) -> str:
    """`JSON.stringify(value)`: compact, keys in their original order, numbers as JavaScript writes them
    (`10.0` -> `10`, `1e21` -> `1e+21`, `-0` -> `0`, NaN -> `null`), text unescaped beyond what JSON needs
    (non-ASCII kept, a lone surrogate as `\\udXXX`); dates in ISO 8601, other values as their text."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return _js_number(value)
    if isinstance(value, str):
        return _js_string(value)
    if isinstance(value, Mapping):
        return (
            "{"
            + ",".join(f"{_js_string(_key(key))}:{compact_json(item)}" for key, item in value.items())
            + "}"
        )
    if isinstance(value, list | tuple):
        return "[" + ",".join(compact_json(item) for item in value) + "]"
    return _js_string(text_of(value) if isinstance(value, date) else str(value))


def _key(key: Any) -> str:
    """An object key as text (JSON keys are strings)."""
    return key if isinstance(key, str) else compact_json(key)


def _js_string(text: str) -> str:
    """A JSON string as JavaScript writes it: only quotes, backslashes, control characters and lone
    surrogates escaped."""
    quoted = json.dumps(text, ensure_ascii=False)
    return _LONE_SURROGATE.sub(lambda found: f"\\u{ord(found[0]):04x}", quoted)


def _js_number(value: int | float) -> str:
    """A JSON number as JavaScript writes it: the shortest digits that read back as the same double, with an
    exponent only from 1e21 up and below 1e-6; integers beyond 2**53 rounded to a double first, as
    JavaScript reads them; `null` for what no double holds (NaN, infinities)."""
    if isinstance(value, int) and abs(value) < 2**53:
        return str(value)
    try:
        number = float(value)
    except OverflowError:
        return "null"
    if not math.isfinite(number):
        return "null"
    if number == 0:
        return "0"
    sign = "-" if number < 0 else ""
    shortest = Decimal(repr(abs(number))).normalize().as_tuple()
    digits = "".join(map(str, shortest.digits))
    point = len(digits) + int(shortest.exponent)  # digits[:point] is the integer part
    if len(digits) <= point <= 21:
        return sign + digits + "0" * (point - len(digits))
    if 0 < point <= 21:
        return f"{sign}{digits[:point]}.{digits[point:]}"
    if -6 < point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    exponent = point - 1
    mantissa = digits[0] + (f".{digits[1:]}" if len(digits) > 1 else "")
    return f"{sign}{mantissa}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"


def as_text(value: Any) -> str:
    """A value cast to a string: strings as they are, anything else as compact JSON (dates in ISO 8601)."""
    if isinstance(value, str | date):
        return text_of(value)
    return compact_json(value)
