"""Checking files against a format's schema, each problem located at its file, line and field."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from toolproof.load.errors import LoadError
from toolproof.load.yaml_source import read_yaml
from toolproof.schemas import stored


@cache
def validator(name: str) -> Any:
    """A validator of format `name`'s stored schema."""
    schema = json.loads(stored(name))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def problems(name: str, path: Path) -> list[LoadError]:
    """Every way the documents of `path` break format `name`'s schema (and the file's YAML errors)."""
    source = read_yaml(path)
    found = list(source.errors)
    check = validator(name)
    for document in source.documents:
        for error in sorted(check.iter_errors(document.data), key=lambda error: list(error.absolute_path)):
            found.append(document.error(tuple(error.absolute_path), _message(error)))
    return found


def _message(error: Any) -> str:
    """jsonschema's message, shortened where it repeats a whole document."""
    if error.validator == "additionalProperties":
        return f"unknown key ({error.message.split('(')[-1].rstrip(')')})"
    if error.validator == "anyOf" and isinstance(error.instance, dict):
        return "matches none of the allowed shapes"
    text: str = error.message
    return text if len(text) <= 200 else text[:200] + "..."
