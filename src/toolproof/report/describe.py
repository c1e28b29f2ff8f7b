"""Words for verdicts: durations, failure kinds, values and failure details, shared by the reports."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from toolproof.model.result import CaseResult, Failure, FailureKind
from toolproof.report.sanitize import Scrubber

_KIND_WORDS = {
    FailureKind.TOOL_ERROR: "tool error",
    FailureKind.RPC_ERROR: "JSON-RPC error",
    FailureKind.TRANSPORT: "transport failure",
    FailureKind.TIMEOUT: "timeout",
    FailureKind.PROTOCOL: "protocol violation",
    FailureKind.EXPECTATION: "expectation failed",
    FailureKind.SETUP: "setup failed",
    FailureKind.CONFIG: "configuration error",
}


def format_duration(seconds: float) -> str:
    """`12ms` under a second, else `3.2s`."""
    millis = round(seconds * 1000)
    return f"{millis}ms" if millis < 1000 else f"{seconds:.1f}s"


def kind_label(failure: Failure) -> str:
    """The failure kind in words, e.g. `tool error`, `expectation failed (contains)`, `JSON-RPC error -32602`.

    The JSON-RPC code is read from `failure.details["code"]`.
    """
    words = _KIND_WORDS[failure.kind]
    code = failure.details.get("code")
    if failure.kind is FailureKind.RPC_ERROR and isinstance(code, int) and not isinstance(code, bool):
        return f"{words} {code}"
    if failure.kind is FailureKind.EXPECTATION and failure.check:
        return f"{words} ({failure.check})"
    return words


def display_name(result: CaseResult, *, numbered: bool) -> str:
    """The case name, with ` [trial N]` when trials must be told apart."""
    return f"{result.name} [trial {result.trial}]" if numbered else result.name


def one_line(text: str) -> str:
    """`text` with line breaks and tabs turned into spaces, for names and other one-line fields."""
    return " ".join(text.split("\n")).replace("\t", " ")


def jsonable(value: Any) -> Any:
    """`value` as plain JSON data: bytes decoded, models dumped, sets sorted, anything else as text."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    if isinstance(value, BaseModel):
        return jsonable(value.model_dump())
    if isinstance(value, Mapping):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted((jsonable(item) for item in value), key=str)
    if isinstance(value, (list, tuple)):
        return [jsonable(item) for item in value]
    return str(value)


def value_text(value: Any) -> str:
    """A value as a person reads it: text as it is, anything else as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(jsonable(value), ensure_ascii=False)


def shorten(text: str, max_chars: int | None, max_lines: int | None) -> str:
    """`text` cut to at most `max_lines` lines and `max_chars` characters, saying how much was left out."""
    kept = text
    if max_lines is not None:
        kept = "\n".join(kept.split("\n")[:max_lines])
    if max_chars is not None:
        kept = kept[:max_chars]
    left_out = len(text) - len(kept)
    if left_out == 0:
        return kept
    newline = "\n" if "\n" in text else ""
    return f"{kept}{newline}... ({left_out} more character{'s' if left_out > 1 else ''})"


def failure_lines(
    failure: Failure,
    scrub: Scrubber,
    *,
    max_chars: int | None = None,
    max_lines: int | None = None,
    details: bool = False,
) -> list[str]:
    """What went wrong, as lines: `<kind>: <message>`, then expected, actual and (optionally) details.

    Values are scrubbed before they are rendered and cut, so a secret never survives by being split.
    """
    message = scrub(failure.message).rstrip()
    lines = f"{kind_label(failure)}: {message}".split("\n") if message else [kind_label(failure)]
    values = [("expected", failure.expected), ("actual", failure.actual)]
    if details and failure.details:
        values.append(("details", failure.details))
    for label, value in values:
        if value is None:
            continue
        text = shorten(value_text(scrub.value(jsonable(value))), max_chars, max_lines)
        if "\n" in text:
            lines.append(f"{label}:")
            lines.extend(f"  {line}" for line in text.split("\n"))
        else:
            lines.append(f"{label}: {text}")
    return lines


def stderr_tail(stderr: str, count: int) -> tuple[list[str], int]:
    """The last `count` lines of `stderr` (trailing newlines dropped) and how many lines it has in all."""
    lines = stderr.rstrip("\n").split("\n") if stderr.strip() else []
    return lines[-count:], len(lines)
