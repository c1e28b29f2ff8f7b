"""Template substitution: `{{name}}` in request arguments, `${VAR}` in server env values and headers."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}")
_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def fill(value: Any, variables: Mapping[str, str]) -> Any:
    """Replace every `{{name}}` whose name is known, recursively through dicts and lists.

    Unknown placeholders stay as written, as in mcp-assert (a case run without `--fixture` sees the
    literal `{{fixture}}`).
    """
    if isinstance(value, str):
        return _PLACEHOLDER.sub(lambda m: variables.get(m.group(1), m.group(0)), value)
    if isinstance(value, dict):
        return {key: fill(item, variables) for key, item in value.items()}
    if isinstance(value, list):
        return [fill(item, variables) for item in value]
    return value


def unknown_placeholders(value: Any, variables: Mapping[str, str]) -> set[str]:
    """Names of `{{...}}` placeholders left in `value` that no variable fills."""
    if isinstance(value, str):
        return {m.group(1) for m in _PLACEHOLDER.finditer(value) if m.group(1) not in variables}
    if isinstance(value, dict):
        return set().union(*(unknown_placeholders(v, variables) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(unknown_placeholders(v, variables) for v in value))
    return set()


def env_references(text: str) -> set[str]:
    """The names of the variables `$VAR`, `${VAR}` and `${VAR:-default}` in `text` refer to."""
    return {match.group(1) or match.group(3) for match in _ENV_REF.finditer(text)}


def unset_references(text: str, environ: Mapping[str, str]) -> list[str]:
    """The variables `text` refers to without a default that `environ` leaves unset or empty."""
    return [
        match.group(1) or match.group(3)
        for match in _ENV_REF.finditer(text)
        if match.group(2) is None and not environ.get(match.group(1) or match.group(3))
    ]


def expand_env(text: str, environ: Mapping[str, str]) -> str:
    """Expand `$VAR`, `${VAR}` and `${VAR:-default}` from `environ`; an unset variable becomes ""."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(3)
        current = environ.get(name, "")
        if match.group(2) is not None and not current:
            return match.group(2)
        return current

    return _ENV_REF.sub(replace, text)
