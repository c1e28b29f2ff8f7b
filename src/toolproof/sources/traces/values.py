"""Small readers shared by the trace formats: JSON text inside attributes, text parts of messages, times."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from datetime import datetime
from typing import Any


def maybe_json(value: Any) -> Any:
    """`value` decoded when it is JSON text (arguments, parameters, outputs often arrive so), else as is."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if not text or (text[0] not in '[{"' and text not in ("true", "false", "null") and not _numeric(text)):
        return value
    try:
        return json.loads(text)
    except ValueError:
        return value


def _numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def arguments(value: Any) -> Any:
    """Tool arguments: JSON text parsed, absent as an empty object."""
    if value is None:
        return {}
    parsed = maybe_json(value)
    return parsed if parsed is not None else {}


def content_text(content: Any) -> str:
    """The text of message content: a string, or the text parts of a list (`{type: text, text|content}`)."""
    if isinstance(content, str):
        return content
    if isinstance(content, Mapping):
        for key in ("text", "content"):
            if isinstance(content.get(key), str):
                return str(content[key])
        return ""
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, Mapping) and part.get("type", "text") == "text":
                parts.append(content_text(part))
        return "\n".join(part for part in parts if part)
    return ""


def millis(value: Any) -> float | None:
    """A timestamp in milliseconds: epoch numbers (seconds, ms, or ns by size) or ISO 8601 text."""
    if isinstance(value, bool) or value is None:
        return None
    text = value.strip() if isinstance(value, str) else ""
    if isinstance(value, int | float):
        number = float(value)
    elif text.lstrip("-").isascii() and text.lstrip("-").isdigit():
        number = float(text)
    elif text:
        try:
            return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000
        except (ValueError, OverflowError, OSError):
            return None
    else:
        return None
    if not math.isfinite(number):
        return None
    if abs(number) > 1e17:  # nanoseconds
        return number / 1e6
    if abs(number) > 1e11:  # milliseconds
        return number
    return number * 1000


def span_ms(start: Any, end: Any) -> float | None:
    """The time between two timestamps, in milliseconds."""
    first, last = millis(start), millis(end)
    return None if first is None or last is None else max(0.0, last - first)


def mapping(value: Any) -> Mapping[str, Any]:
    """`value` when it is a mapping, else an empty one."""
    return value if isinstance(value, Mapping) else {}


def text_or_none(value: Any) -> str | None:
    """`value` as text, None staying None."""
    return None if value is None else str(value)


def lookup(value: Any, path: str) -> Any:
    """The value at a dot path (`data.items.0.id`; numbers index lists), or None when there is none."""
    current = value
    for part in path.split("."):
        if isinstance(current, Mapping) and part in current:
            current = current[part]
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            return None
    return current
