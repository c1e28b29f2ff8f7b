"""Pydantic validation errors as LoadErrors: YAML position, dotted field path, and a "did you mean" hint."""

from __future__ import annotations

import re
import types
from collections.abc import Callable, Iterable
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from toolproof.load.errors import LoadError
from toolproof.load.yaml_source import Document, KeyPath

Loc = tuple[int | str, ...]
_QUOTED = re.compile(r"'([^']*)'")


def suggest(word: str, choices: Iterable[str]) -> str | None:
    """`did you mean 'x'?` for the closest choice, if any is close enough."""
    import difflib  # only for a key that is wrong

    close = difflib.get_close_matches(word, list(choices), n=1)
    return f"did you mean {close[0]!r}?" if close else None


def unknown_key(document: Document, path: KeyPath, allowed: Iterable[str]) -> LoadError:
    """The error for a key that is not one of `allowed`, hinting the closest allowed key or listing them."""
    allowed = sorted(allowed)
    hint = suggest(str(path[-1]), allowed) or f"known keys: {', '.join(allowed)}"
    return document.error(path, "unknown key", hint)


def keys_of(model: type[BaseModel]) -> list[str]:
    """The keys a file may use for `model`: each field's alias or name, except the injected `kind` tag."""
    return [info.alias or name for name, info in model.model_fields.items() if name != "kind"]


def _unwrap(annotation: Any) -> Any:
    """`annotation` without `Annotated[...]` metadata and without an optional `| None`."""
    while True:
        if get_origin(annotation) is Annotated:
            annotation = get_args(annotation)[0]
            continue
        if get_origin(annotation) in (Union, types.UnionType):
            members = [member for member in get_args(annotation) if member is not type(None)]
            if len(members) == 1:
                annotation = members[0]
                continue
        return annotation


def _step(annotation: Any, part: int | str) -> Any:
    """The type reached from `annotation` by one element of a pydantic error location, or None."""
    annotation = _unwrap(annotation)
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):  # a discriminated union: the location names the member's tag
        for member in get_args(annotation):
            fields = member.model_fields if _is_model(member) else {}
            kind = fields.get("kind") or fields.get("type")  # a file's `type:` tag (guardrails)
            if kind is not None and part in (kind.default, *get_args(kind.annotation)):
                return member
        return None
    if _is_model(annotation):
        for name, info in annotation.model_fields.items():
            if part in (name, info.alias):
                return info.annotation
        return None
    if origin is list and isinstance(part, int):
        return get_args(annotation)[0]
    if origin is dict and isinstance(part, str):
        return get_args(annotation)[1]
    return None


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def model_at(root: type[BaseModel], loc: Loc) -> type[BaseModel] | None:
    """The model class found at `loc` inside `root`, if `loc` leads to one."""
    current: Any = root
    for part in loc:
        current = _step(current, part)
    current = _unwrap(current)
    return current if _is_model(current) else None


def drop_null_fields(value: Any, annotation: Any) -> Any:
    """`value` without the null-valued keys of its model mappings, at any depth.

    Go's yaml.v3 leaves a field written as `key:` (null) at its zero value, so mcp-assert treats it as absent;
    nulls inside free-form values (tool arguments, `json_path` values) are data and stay.
    """
    annotation = _unwrap(annotation)
    if get_origin(annotation) in (Union, types.UnionType) and isinstance(value, dict):
        annotation = _step(annotation, value.get("kind", ""))  # a discriminated union: pick by the tag
    if _is_model(annotation) and isinstance(value, dict):
        fields = {key: _step(annotation, key) for key in value}
        return {
            key: drop_null_fields(item, fields[key])
            for key, item in value.items()
            if item is not None or fields[key] is None
        }
    if get_origin(annotation) is list and isinstance(value, list):
        return [drop_null_fields(item, get_args(annotation)[0]) for item in value]
    if get_origin(annotation) is dict and isinstance(value, dict):
        return {key: drop_null_fields(item, get_args(annotation)[1]) for key, item in value.items()}
    return value


def _shown(value: Any) -> str | None:
    if value is None or isinstance(value, bool | int | float | str):
        return repr(value)
    return None


def _one(
    detail: ErrorDetails, root: type[BaseModel], document: Document, to_yaml: Callable[[Loc], KeyPath]
) -> LoadError:
    loc = tuple(detail["loc"])
    path = to_yaml(loc)
    kind = detail["type"]
    if kind == "extra_forbidden":
        model = model_at(root, loc[:-1])
        return unknown_key(document, path, keys_of(model) if model else [])
    if kind == "missing":
        return document.error(path, "required key missing")
    got = _shown(detail.get("input"))
    if kind in ("enum", "literal_error"):
        choices = _QUOTED.findall(str(detail.get("ctx", {}).get("expected", "")))
        hint = suggest(str(detail.get("input")), choices)
        return document.error(path, f"{got} is not one of {', '.join(choices)}", hint)
    if kind == "value_error":  # a model's own check: its message says it all
        return document.error(path, str(detail.get("ctx", {}).get("error", detail["msg"])))
    message = detail["msg"] if got is None else f"{detail['msg']}, got {got}"
    return document.error(path, message)


def validation_errors(
    error: ValidationError, root: type[BaseModel], document: Document, to_yaml: Callable[[Loc], KeyPath]
) -> list[LoadError]:
    """One LoadError per pydantic error of `root`; `to_yaml` maps an error location to its key path."""
    return [_one(detail, root, document, to_yaml) for detail in error.errors()]
