"""Words for verdicts: durations, failure kinds, values and failure details, shared by the reports."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from toolproof.core.sanitize import Scrubber, unframed_lines
from toolproof.model.result import CaseResult, Failure, FailureKind

REPORT_VALUE_CHARS = 64 * 1024
"""The longest expected, actual or details value a report file holds in full."""

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


def display_name(result: CaseResult, *, numbered: bool, label: str | None = None) -> str:
    """The case name (or `label`, its unique form), with ` [trial N]` when trials must be told apart."""
    name = result.name if label is None else label
    return f"{name} [trial {result.trial}]" if numbered else name


def unique_names(keys: Sequence[tuple[str, Hashable, str]]) -> list[str]:
    """For each (scope, case, name) key, `name`, told apart from other cases of that name in the same scope:
    the second is `name [2]`, the third `name [3]` (skipping a number whose form is itself a name there).
    Keys of one case (its trials) share one name; the numbers follow the order of `keys`."""
    taken = {(scope, name) for scope, _, name in keys}
    counts: dict[tuple[str, str], int] = {}
    names: dict[tuple[str, Hashable, str], str] = {}
    for key in dict.fromkeys(keys):
        scope, _, name = key
        number = counts.get((scope, name), 0) + 1
        label = name
        if number > 1:
            while (scope, f"{name} [{number}]") in taken:
                number += 1
            label = f"{name} [{number}]"
            taken.add((scope, label))
        counts[(scope, name)] = number
        names[key] = label
    return [names[key] for key in keys]


def case_ids(results: Sequence[CaseResult]) -> list[str]:
    """Each result's id, `file::name`, unique per case: a second case of the same name in a file (another
    YAML document) is `file::name [2]`. Trials of one case share its id."""
    names = unique_names([(result.file.as_posix(), result.line, result.name) for result in results])
    return [f"{result.file.as_posix()}::{name}" for result, name in zip(results, names, strict=True)]


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


def value_text(value: Any, *, as_json: bool = False) -> str:
    """A value as a person reads it: text as it is (unless `as_json`), anything else as JSON."""
    if isinstance(value, str) and not as_json:
        return value
    return json.dumps(jsonable(value), ensure_ascii=False)


def capped(value: Any, max_chars: int = REPORT_VALUE_CHARS) -> Any:
    """A JSON value for a report file: as it is, or, when its text is longer than `max_chars`, that text cut
    to `max_chars` with a note of how much was left out (a multi-megabyte result stays out of the report)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return value if len(text) <= max_chars else shorten(text, max_chars, None)


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
    as_json = _look_alike(failure.expected, failure.actual)
    for label, value in values:
        if value is None:
            continue
        text = shorten(value_text(scrub.value(jsonable(value)), as_json=as_json), max_chars, max_lines)
        if "\n" in text:
            lines.append(f"{label}:")
            lines.extend(f"  {line}" for line in text.split("\n"))
        else:
            lines.append(f"{label}: {text}")
    return lines


def _look_alike(expected: Any, actual: Any) -> bool:
    """Whether two different values read the same as text (`"36"` and `36`): then they are shown as JSON."""
    return expected != actual and value_text(expected) == value_text(actual)


def stderr_tail(stderr: str, count: int) -> tuple[list[str], int]:
    """The last `count` lines of `stderr` (trailing newlines dropped; a Rich traceback's frames taken off, so
    the lines that carry its exception show) and how many such lines it has in all."""
    lines = unframed_lines(stderr.rstrip("\n")) if stderr.strip() else []
    return lines[-count:], len(lines)


_STDERR_HINT = re.compile(r" \(stderr: (.*)\)$")


def shown_failure(result: CaseResult) -> Failure | None:
    """The result's failure as a report shows it above the server's stderr: without the `(stderr: ...)` that
    ends its message's first line when the stderr shown below holds those lines, so none is printed twice."""
    failure = result.failure
    if failure is None or not result.stderr.strip():
        return failure
    first, newline, rest = failure.message.partition("\n")
    found = _STDERR_HINT.search(first)
    pieces = found.group(1).removeprefix("...").split(" | ") if found else []
    if found is None or not all(piece.strip() in result.stderr for piece in pieces):
        return failure
    return failure.model_copy(update={"message": first[: found.start()] + newline + rest})
