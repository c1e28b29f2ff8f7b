"""Values rendered as text the way mcp-assert's Go code renders them, so that comparisons give its verdicts.

`go_v` is fmt's `%v` of a decoded JSON or YAML value and `go_json` is `json.Marshal`, with one deliberate
difference: numbers print exactly (json_path numbers keep their exact value). Go
decodes every JSON number to float64, so `%v` prints 1234567 as `1.234567e+06` and a suite expecting 1234567
fails; here an integer prints as its digits, a float with an integral value below 1e21 prints as that integer
(`1.0` -> `1`, as Go does below 1e6), and any other float prints in Python's shortest round-trip form
(`1.5`, `1e-05`, `1e+21`). That form is Go's `%v` too for magnitudes below 1e6 (Go switches to an exponent
there: `1.2345675e+06` where this prints `1234567.5`); `json.Marshal` writes the same digits but spells the
exponent `1e-7` and starts it only below 1e-6 (`0.00001` where this prints `1e-05`), which means the same
JSON value.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

# What Go's strings.TrimSpace removes (unicode.IsSpace); Python's str.strip() also removes \x1c-\x1f.
GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)

ELLIPSIS = "…"


EMPTY_RESULTS = ("", "null", "[]", "{}")
"""The result texts that count as empty, once trimmed: `not_empty` fails on them (so is never generated)."""


def go_trim(text: str) -> str:
    """`strings.TrimSpace(text)`."""
    return text.strip(GO_SPACE)


def is_empty_result(text: str) -> bool:
    """Whether a result's text counts as empty (nothing, `null`, `[]` or `{}`, around white space)."""
    return go_trim(text) in EMPTY_RESULTS


def go_number(value: int | float) -> str:
    """A number's exact text: integers as digits, integral floats below 1e21 without `.0`, other floats in
    their shortest round-trip form (not Go's float64 `%v`: see the module docstring)."""
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return repr(value)


def go_v(value: Any) -> str:
    """`fmt.Sprintf("%v", value)` for a decoded JSON/YAML value (`map[a:1 b:[x y]]`, `<nil>`, `true`), except
    that numbers print exactly (`go_number`): `1234567` where Go's float64 `%v` gives `1.234567e+06`."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return go_number(value)
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        items = sorted(value.items(), key=lambda item: _key_order(item[0]))
        return "map[" + " ".join(f"{go_v(key)}:{go_v(item)}" for key, item in items) + "]"
    if isinstance(value, list | tuple):
        return "[" + " ".join(go_v(item) for item in value) + "]"
    return str(value)


def _key_order(key: Any) -> tuple[int, Any]:
    """fmt sorts map keys: numbers by value, strings by their bytes (the same order as code points)."""
    if isinstance(key, int | float) and not isinstance(key, bool):
        return (0, key)
    return (1, go_v(key))


def go_json(value: Any) -> str:
    """`json.Marshal(value)`: compact, keys sorted, integral floats as integers.

    Unlike Go, `<`, `>` and `&` are not escaped as `\\u003c` etc., and small floats keep Python's exponent
    spelling (`1e-05`, Go `0.00001`); the JSON means the same either way.
    """
    return json.dumps(
        _exact_numbers(value), ensure_ascii=False, separators=(",", ":"), sort_keys=True, default=str
    )


def _exact_numbers(value: Any) -> Any:
    if isinstance(value, float) and math.isfinite(value) and value.is_integer() and abs(value) < 1e21:
        return int(value)
    if isinstance(value, Mapping):
        return {key: _exact_numbers(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_exact_numbers(item) for item in value]
    return value


def counted(number: int, noun: str) -> str:
    """`1 result`, `3 results`."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def cut(text: str, limit: int) -> str:
    """`text` shortened to `limit` characters and an ellipsis when longer."""
    return text if len(text) <= limit else text[:limit] + ELLIPSIS


def quote(text: str, limit: int | None = 300) -> str:
    """`text` double-quoted with escapes (like Go's `%q`), cut to `limit` characters with an ellipsis."""
    return json.dumps(text if limit is None else cut(text, limit), ensure_ascii=False)
