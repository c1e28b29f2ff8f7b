"""Building blocks of the file-format schemas: JSON Schema from pydantic models, and closed objects whose
keys are exactly the keys a loader accepts (so a key added to a loader without a schema fails at once)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue, models_json_schema
from pydantic_core import core_schema

from toolproof.model.server_config import go_string, one_or_many

Schema = dict[str, Any]

TEXT: Schema = {"type": "string"}
SCALAR_TEXT: Schema = {"type": ["string", "number", "boolean"], "description": "read as text"}
BOOLEAN: Schema = {"type": "boolean"}
INTEGER: Schema = {"type": "integer", "minimum": 0}
NUMBER: Schema = {"type": "number"}
SHARE: Schema = {"type": "number", "minimum": 0, "maximum": 1}
ANYTHING: Schema = {}
MAPPING: Schema = {"type": "object"}
DURATION: Schema = {
    "type": ["string", "number"],
    "description": "Go-style duration (500ms, 30s, 1m30s) or seconds",
    "pattern": r"^\s*[-+]?(([0-9]+\.?[0-9]*|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h)?)+\s*$",
}


def texts(item: Schema | None = None) -> Schema:
    """A list of strings (or of `item`)."""
    return {"type": "array", "items": item or TEXT}


def one_or_more(item: Schema | None = None) -> Schema:
    """One string (or `item`) or a list of them."""
    return {"anyOf": [item or TEXT, texts(item)]}


def closed(
    keys: Iterable[str],
    types: Mapping[str, Schema],
    *,
    required: Iterable[str] = (),
    description: str | None = None,
) -> Schema:
    """An object with exactly the loader's `keys`, each typed by `types`; raises when the two disagree."""
    wanted = set(keys)
    if wanted != set(types):
        missing, extra = sorted(wanted - set(types)), sorted(set(types) - wanted)
        raise ValueError(f"schema keys differ from the loader's: untyped {missing}, unknown {extra}")
    schema: Schema = {"type": "object", "properties": {key: types[key] for key in sorted(wanted)}}
    if required:
        schema["required"] = sorted(required)
    schema["additionalProperties"] = False
    if description:
        schema = {"description": description, **schema}
    return schema


class _Generator(GenerateJsonSchema):
    """pydantic's generator, taught the loader's lenient scalars: a YAML number or boolean is read as text
    (`go_string`), and a single value stands for a list of one (`one_or_many`)."""

    def function_before_schema(self, schema: core_schema.BeforeValidatorFunctionSchema) -> JsonSchemaValue:
        function = schema["function"]["function"]
        if function is go_string:
            return {"type": ["string", "number", "boolean"]}
        inner = super().function_before_schema(schema)
        if function is one_or_many and inner.get("type") == "array":
            return {"anyOf": [inner["items"], inner]}
        return inner


def model_schemas(models: Iterable[type[BaseModel]]) -> tuple[dict[str, Schema], Schema]:
    """Each model's reference (by class name) and the `$defs` they share, as the loader validates them."""
    listed = list(models)
    refs, top = models_json_schema(
        [(model, "validation") for model in listed],
        by_alias=True,
        ref_template="#/$defs/{model}",
        schema_generator=_Generator,
    )
    found = {model.__name__: refs[(model, "validation")] for model in listed}
    return found, _untitled(top.get("$defs", {}))


def _untitled(value: Any) -> Any:
    """`value` without pydantic's generated `title`s (field names repeated in words)."""
    if isinstance(value, dict):
        return {
            key: _untitled(item)
            for key, item in value.items()
            if not (key == "title" and isinstance(item, str) and "properties" not in value)
        }
    if isinstance(value, list):
        return [_untitled(item) for item in value]
    return value


def document(title: str, description: str, body: Schema, defs: Schema | None = None) -> Schema:
    """A complete draft 2020-12 schema."""
    schema: Schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": title,
        "description": description,
        **body,
    }
    if defs:
        schema["$defs"] = dict(sorted(defs.items()))
    return schema


def any_case(values: Iterable[str]) -> Schema:
    """One of `values`, in any letter case (the loader lowercases it); completion offers them as written."""
    listed = list(values)
    spelled = "|".join("".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in v) for v in listed)
    return {"anyOf": [{"enum": listed}, {"type": "string", "pattern": f"^({spelled})$"}]}
