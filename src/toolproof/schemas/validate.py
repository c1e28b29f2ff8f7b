"""Checking files against a format's schema, each problem located at its file, line and field."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from toolproof.load.errors import LoadError
from toolproof.load.validation import unknown_key
from toolproof.load.yaml_source import Document, read_yaml
from toolproof.schemas import stored


@cache
def validator(name: str) -> Any:
    """A validator of format `name`'s stored schema."""
    schema = json.loads(stored(name))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def problems(name: str, path: Path) -> list[LoadError]:
    """Every way the documents of `path` break format `name`'s schema (and the file's YAML errors): for an
    error among alternatives, the one of the alternative that fits best, so the path reaches the field."""
    source = read_yaml(path)
    found = list(source.errors)
    check = validator(name)
    for document in source.documents:
        for error in check.iter_errors(document.data):
            found.extend(_located(document, best_match([error])))
    return sorted(dict.fromkeys(found), key=lambda problem: (problem.line, problem.column))


def _located(document: Document, error: ValidationError) -> list[LoadError]:
    at = tuple(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = error.schema.get("properties", {})
        return [unknown_key(document, (*at, key), known) for key in error.instance if key not in known]
    message = error.message if len(error.message) <= 200 else error.message[:200] + "..."
    if error.context and all(each.validator == "type" for each in error.context):
        wanted = [each.validator_value for each in error.context]
        names = [name for value in wanted for name in ([value] if isinstance(value, str) else value)]
        message = f"{error.instance!r} is not of type {' or '.join(dict.fromkeys(names))}"
    return [document.error(at, message)]
