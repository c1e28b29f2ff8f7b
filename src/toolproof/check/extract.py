"""Values read out of a reply for the report (MCPLab `extract`): never a verdict."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from toolproof.model.scenario import Extraction

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _typed(text: str) -> Any:
    if text in ("true", "false"):
        return text == "true"
    if _NUMBER.fullmatch(text):
        number = float(text)
        return int(number) if number.is_integer() and "." not in text else number
    return text


def extract(rules: Sequence[Extraction], reply: str) -> dict[str, Any]:
    """Each rule's value in `reply`, by name: None where its pattern does not match (or cannot run)."""
    if not rules:  # the JavaScript regex translator loads only for a case that extracts
        return {}
    from toolproof.core.jsregex import REGEX_TIMEOUT_S, JSRegexError, compile_js

    found: dict[str, Any] = {}
    for rule in rules:
        try:
            match = compile_js(rule.regex).search(reply, timeout=REGEX_TIMEOUT_S)
        except (JSRegexError, TimeoutError):
            match = None
        if match is None:
            found[rule.name] = None
            continue
        named = match.groupdict().get("value")
        first = match.group(1) if match.re.groups else None
        text = next(value for value in (named, first, match.group(0)) if value is not None)
        found[rule.name] = _typed(text)
    return found
