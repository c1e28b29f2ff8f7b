"""JSON Schema validation of values a server sent, with the violation located by its JSON path.

Schemas are compiled once and cached. `$ref`s resolve only inside the schema itself (and the bundled
metaschemas): a schema a server declares never makes toolproof fetch anything.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import jsonschema
from referencing import Registry
from referencing.exceptions import Unresolvable


class InvalidSchema(ValueError):
    """The schema is not a valid JSON Schema."""


@lru_cache(maxsize=512)
def _validator(schema_text: str) -> Any:
    schema = json.loads(schema_text)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as error:
        raise InvalidSchema(f"not a valid JSON Schema: {error.message} (at {error.json_path})") from None
    return cls(schema, registry=Registry())


def schema_error(schema: Mapping[str, Any]) -> str | None:
    """Why `schema` is not a valid JSON Schema (Draft 2020-12 unless `$schema` says otherwise), if not."""
    try:
        _validator(json.dumps(schema, sort_keys=True, default=str))
    except InvalidSchema as error:
        return str(error)
    return None


def schema_violation(schema: Mapping[str, Any], value: Any) -> str | None:
    """None when `value` is valid against `schema`, else the most relevant problem as `at PATH: message`.

    An invalid schema, or a `$ref` that does not resolve inside it, is described instead.
    """
    try:
        validator = _validator(json.dumps(schema, sort_keys=True, default=str))
        worst = jsonschema.exceptions.best_match(validator.iter_errors(value))
    except InvalidSchema as error:
        return f"the schema is {error}"
    except Unresolvable as error:
        return f"the schema has a $ref that does not resolve inside it: {error}"
    if worst is None:
        return None
    return f"at {worst.json_path}: {worst.message}"
