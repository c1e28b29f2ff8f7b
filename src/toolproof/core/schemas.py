"""JSON Schema validation of values a server or an agent sent, with the violation located by its JSON path.

Schemas are compiled once and cached. `$ref`s resolve only inside the schema itself (and the bundled
metaschemas): a schema a server declares never makes toolproof fetch anything. The regular expressions of
`pattern`, `patternProperties` and `additionalProperties` run with a time bound (`REGEX_TIMEOUT_S` each), so
a hostile schema cannot stall a run: a pattern that takes longer is a violation that says so. jsonschema's
`unevaluatedProperties` matches `patternProperties` keys itself, unbounded, so a schema that uses it has each
of those patterns tried first, bounded, on every key of the value.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import jsonschema
import regex
from jsonschema.exceptions import ValidationError
from referencing import Registry
from referencing.exceptions import Unresolvable

from toolproof.core.jsregex import REGEX_TIMEOUT_S


class InvalidSchema(ValueError):
    """The schema is not a valid JSON Schema."""


class _SlowPattern(Exception):
    """A schema's pattern took longer than REGEX_TIMEOUT_S on one string."""


def _search(pattern: str, text: str) -> bool:
    """`re.search(pattern, text)` as jsonschema does it, within REGEX_TIMEOUT_S; raises _SlowPattern."""
    try:
        return regex.search(pattern, text, timeout=REGEX_TIMEOUT_S) is not None
    except TimeoutError:
        raise _SlowPattern(pattern) from None


def _too_slow(pattern: str) -> ValidationError:
    return ValidationError(f"the pattern {pattern!r} took more than {REGEX_TIMEOUT_S:g}s on this value")


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Any:
    if not validator.is_type(instance, "string"):
        return
    try:
        if not _search(pattern, instance):
            yield ValidationError(f"{instance!r} does not match {pattern!r}")
    except _SlowPattern:
        yield _too_slow(pattern)


def _pattern_properties(validator: Any, patterns: dict[str, Any], instance: Any, schema: Any) -> Any:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            try:
                matched = _search(pattern, key)
            except _SlowPattern:
                yield _too_slow(pattern)
                return
            if matched:
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Any, allowed: Any, instance: Any, schema: Any) -> Any:
    if not validator.is_type(instance, "object"):
        return
    declared, patterns = schema.get("properties", {}), list(schema.get("patternProperties", {}))
    extras = []
    for key in instance:
        try:
            if key not in declared and not any(_search(pattern, key) for pattern in patterns):
                extras.append(key)
        except _SlowPattern as slow:
            yield _too_slow(str(slow))
            return
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif allowed is False and extras:
        names = ", ".join(repr(extra) for extra in sorted(extras, key=str))
        yield ValidationError(f"Additional properties are not allowed ({names} unexpected)")


_BOUNDED = {
    "pattern": _pattern,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional_properties,
}


@lru_cache(maxsize=512)
def _validator(schema_text: str) -> Any:
    schema = json.loads(schema_text)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as error:
        raise InvalidSchema(f"not a valid JSON Schema: {error.message} (at {error.json_path})") from None
    bounded = jsonschema.validators.extend(cls, _BOUNDED)
    return bounded(schema, registry=Registry())


def schema_error(schema: Mapping[str, Any]) -> str | None:
    """Why `schema` is not a valid JSON Schema (Draft 2020-12 unless `$schema` says otherwise), if not."""
    try:
        _validator(json.dumps(schema, sort_keys=True, default=str))
    except InvalidSchema as error:
        return str(error)
    return None


def _walk(value: Any) -> Any:
    """Every mapping inside `value` (itself included), depth first."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            yield item
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)


def _slow_evaluated_pattern(schema: Mapping[str, Any], value: Any) -> str | None:
    """A `patternProperties` pattern that takes too long on a key of `value`, when the schema uses
    `unevaluatedProperties` (whose evaluation would run it unbounded)."""
    if not any("unevaluatedProperties" in part for part in _walk(schema)):
        return None
    patterns = {
        str(pattern)
        for part in _walk(schema)
        if isinstance(part.get("patternProperties"), Mapping)
        for pattern in part["patternProperties"]
    }
    keys = {str(key) for part in _walk(value) for key in part}
    for pattern in patterns:
        for key in keys:
            try:
                _search(pattern, key)
            except _SlowPattern:
                return pattern
            except regex.error:
                break
    return None


def schema_violation(schema: Mapping[str, Any], value: Any) -> str | None:
    """None when `value` is valid against `schema`, else the most relevant problem as `at PATH: message`.

    An invalid schema, or a `$ref` that does not resolve inside it, is described instead.
    """
    try:
        validator = _validator(json.dumps(schema, sort_keys=True, default=str))
        if (slow := _slow_evaluated_pattern(schema, value)) is not None:
            return f"at $: {_too_slow(slow).message}"
        worst = jsonschema.exceptions.best_match(validator.iter_errors(value))
    except InvalidSchema as error:
        return f"the schema is {error}"
    except Unresolvable as error:
        return f"the schema has a $ref that does not resolve inside it: {error}"
    if worst is None:
        return None
    return f"at {worst.json_path}: {worst.message}"
