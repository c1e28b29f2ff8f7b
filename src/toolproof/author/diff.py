"""A readable, structured difference between a recorded answer and a new one, naming each changed field.

JSON answers are compared as trees (`$.items[0].name: "a" -> "b"`); other text line by line (`line 3`).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_SHOWN = 120


class _Absent:
    def __repr__(self) -> str:
        return "(absent)"


ABSENT: Any = _Absent()


@dataclass(frozen=True)
class Difference:
    """`field` was `before` and is now `after` (ABSENT when it was added or removed)."""

    field: str
    before: Any
    after: Any
    note: str = ""  # said instead of the values, when set

    def render(self) -> str:
        if self.note:
            return f"{self.field}: {self.note}"
        if self.before is ABSENT:
            return f"{self.field}: added {_show(self.after)}"
        if self.after is ABSENT:
            return f"{self.field}: removed (was {_show(self.before)})"
        return f"{self.field}: {_show(self.before)} -> {_show(self.after)}"


def _show(value: Any) -> str:
    shown = json.dumps(value, ensure_ascii=False)
    return shown if len(shown) <= _SHOWN else shown[: _SHOWN - 1] + "…"


def child(path: str, key: str | int) -> str:
    """`path` extended by an object key or an array index, in JSONPath notation."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if _PLAIN_KEY.fullmatch(key) else f"{path}[{json.dumps(key, ensure_ascii=False)}]"


def tree_differences(before: Any, after: Any, path: str = "$") -> list[Difference]:
    """Every leaf that differs between two decoded JSON values, in document order."""
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        found: list[Difference] = []
        for key in [*before, *(key for key in after if key not in before)]:
            here = child(path, str(key))
            if key not in after:
                found.append(Difference(here, before[key], ABSENT))
            elif key not in before:
                found.append(Difference(here, ABSENT, after[key]))
            else:
                found.extend(tree_differences(before[key], after[key], here))
        return found
    if _is_list(before) and _is_list(after):
        found = []
        for index in range(max(len(before), len(after))):
            here = child(path, index)
            if index >= len(after):
                found.append(Difference(here, before[index], ABSENT))
            elif index >= len(before):
                found.append(Difference(here, ABSENT, after[index]))
            else:
                found.extend(tree_differences(before[index], after[index], here))
        return found
    if before == after and type(before) is type(after):
        return []
    return [Difference(path, before, after)]


def _is_list(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str)


def as_tree(text: str) -> Any:
    """The text as a JSON object or array, or None."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict | list) else None


def text_differences(before: str, after: str) -> list[Difference]:
    """How `after` differs from `before`: by JSON field when both are JSON objects or arrays, else by line."""
    if before == after:
        return []
    old, new = as_tree(before), as_tree(after)
    if old is not None and new is not None:
        return tree_differences(old, new)
    old_lines, new_lines = before.splitlines(), after.splitlines()
    found: list[Difference] = []
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    for tag, first, last, start, end in matcher.get_opcodes():
        if tag == "equal":
            continue
        for offset in range(max(last - first, end - start)):
            old_line = old_lines[first + offset] if first + offset < last else ABSENT
            new_line = new_lines[start + offset] if start + offset < end else ABSENT
            number = (first if old_line is not ABSENT else start) + offset + 1
            found.append(Difference(f"line {number}", old_line, new_line))
    return found or [Difference("text", before, after)]


def render(differences: Sequence[Difference], limit: int = 10) -> str:
    """One line per difference, at most `limit`, then how many more."""
    lines = [item.render() for item in differences[:limit]]
    if len(differences) > limit:
        lines.append(f"... and {len(differences) - limit} more")
    return "\n".join(lines)
