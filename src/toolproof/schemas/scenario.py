"""toolproof's own agent scenario format (one YAML document per case).

`load.scenario_file` reads it by hand (its `Reader`), not through a pydantic model, so this schema is built
from that reader's key lists (`CASE_KEYS`, `TURN_KEYS`, `COMMON_KEYS`, `MATCHER_KEYS`, `_CHECKS`, ...) and the
shapes its methods accept; `servers:` items are the `ServerConfig` model, as `read_servers` validates them.
"""

from __future__ import annotations

from typing import get_args

from toolproof.load import scenario_checks as own_checks
from toolproof.load import scenario_file as own
from toolproof.load import scenario_matchers as matchers
from toolproof.load.reader import PRECONDITION_KEYS
from toolproof.model.scenario import RegexFlavor
from toolproof.model.server_config import ServerConfig, Transport
from toolproof.schemas.accepted import accepted
from toolproof.schemas.shapes import (
    ANYTHING,
    BOOLEAN,
    INTEGER,
    MAPPING,
    SCALAR_TEXT,
    SHARE,
    TEXT,
    Schema,
    any_case,
    closed,
    document,
    model_schemas,
    one_or_more,
    texts,
)
from toolproof.schemas.targets import SERVER_NAME, agent, target

MATCHER = "#/$defs/ArgumentMatcher"
FLAVOR: Schema = {"enum": list(get_args(RegexFlavor))}
CHECK = "#/$defs/Check"


def _read(kind: str, types: dict[str, Schema]) -> Schema:
    """The mapping form of check `kind`: exactly the keys its reader in `load/scenario_checks.py` accepts
    (and requires), each typed by `types`."""
    reader = own_checks._CHECKS[kind]
    found = accepted(lambda r: reader(own_checks.CheckReader(r), {}, ()))
    return closed(found.keys, types, required=found.required)


def _call(extra: dict[str, Schema] | None = None) -> Schema:
    """A tool call's keys, as `called:` reads them, and `extra` keys (a count's bounds)."""
    call = _read("called", _CALL_TYPES)
    if not extra:
        return call
    return closed([*call["properties"], *extra], call["properties"] | extra, required=call["required"])


_CALL_TYPES: dict[str, Schema] = {
        "tool": SCALAR_TEXT,
        "args": {"type": "object", "additionalProperties": {"$ref": MATCHER}},
        "index": INTEGER,
        "strict": BOOLEAN,
        "forbidden_args": one_or_more(),
        "forbidden_values": {"type": "object", "additionalProperties": {"$ref": MATCHER}},
        "error": BOOLEAN,
    }


def _checks() -> dict[str, Schema]:
    """The value each check key takes, as the reader's method for it accepts it."""
    sequence = {
        "anyOf": [texts(), closed(["any_of"], {"any_of": {"type": "array", "items": texts(), "minItems": 1}})]
    }
    sequence["anyOf"].extend(closed([mode], {mode: texts()}) for mode in own_checks.SEQUENCE_MODES)
    reply_ops = ("contains", "not_contains", "starts_with", "ends_with", "equals")
    reply_types = {op: one_or_more(SCALAR_TEXT) for op in reply_ops} | {
        "case_sensitive": BOOLEAN,
        "trim": BOOLEAN,
    }
    bounds = {"exactly": INTEGER, "min": INTEGER, "max": INTEGER}
    return {
        "called": {"anyOf": [TEXT, _call()]},
        "not_called": {"anyOf": [TEXT, texts(), _call()]},
        "count": _call(bounds),
        "tool_call_count": _read("tool_call_count", {"tool": SCALAR_TEXT, **bounds}),
        "tools_called": one_or_more(),
        "tools_not_called": one_or_more(),
        "sequence": sequence,
        "not_sequence": sequence,
        "node": _read(
            "node",
            {
                "name": SCALAR_TEXT,
                "args": {"type": "object", "additionalProperties": {"$ref": MATCHER}},
                "index": INTEGER,
                "strict": BOOLEAN,
                "forbidden_args": one_or_more(),
                "calls": {"type": "array", "items": {"$ref": CHECK}},
                "not": BOOLEAN,
            },
        ),
        "tool_input": _read(
            "tool_input",
            {
                "tool": SCALAR_TEXT,
                "contains": SCALAR_TEXT,
                "regex": SCALAR_TEXT,
                "jsonpath": SCALAR_TEXT,
                "equals": ANYTHING,
            },
        ),
        "reply": _read("reply", reply_types),
        "regex": {
            "anyOf": [
                TEXT,
                _read(
                    "regex",
                    {
                        "pattern": TEXT,
                        "flavor": FLAVOR,
                        "ignore_case": BOOLEAN,
                        "match": BOOLEAN,
                    },
                ),
            ]
        },
        "jsonpath": {
            "anyOf": [
                TEXT,
                _read("jsonpath", {"path": SCALAR_TEXT, "equals": ANYTHING, "exists": BOOLEAN}),
            ]
        },
        "field": _read("field", {"path": SCALAR_TEXT, "matches": {"$ref": MATCHER}, "not": BOOLEAN}),
        "schema": {"description": "a JSON Schema, or {schema, field}", "type": "object"},
        "http_status": {"type": "integer", "minimum": 100},
        "latency": _read("latency", {"max_ms": {"type": "number", "minimum": 0}}),
        "tokens": _read("tokens", {"max_total": INTEGER, "max_input": INTEGER, "max_output": INTEGER}),
        "guardrail": _read("guardrail", {"name": SCALAR_TEXT, "triggered": BOOLEAN}),
        "judge": {
            "anyOf": [
                TEXT,
                _read(
                    "judge",
                    {
                        "criteria": SCALAR_TEXT,
                        "threshold": SHARE,
                        "not": one_or_more(),
                        "grounding": BOOLEAN,
                        "node": SCALAR_TEXT,
                        "key": SCALAR_TEXT,
                    },
                ),
            ]
        },
    }


def _check() -> Schema:
    """One check: exactly one check key, with the options every check takes."""
    checks = _checks()
    if set(checks) != set(own_checks._CHECKS):
        raise ValueError(f"checks differ from the loader's: {sorted(set(checks) ^ set(own_checks._CHECKS))}")
    common = closed(
        own_checks.COMMON_KEYS,
        {
            "id": SCALAR_TEXT,
            "depends_on": one_or_more(SCALAR_TEXT),
            "label": SCALAR_TEXT,
            "when": closed(
                PRECONDITION_KEYS,
                {
                    "tool_called": TEXT,
                    "tool_called_pattern": TEXT,
                    "any_tool_called": BOOLEAN,
                    "min_tool_calls": INTEGER,
                },
            ),
            "pass_threshold": SHARE,
        },
    )
    properties = {**common["properties"], **checks}
    return {
        "type": "object",
        "description": "one check key and the options id, depends_on, label, when, pass_threshold",
        "properties": dict(sorted(properties.items())),
        "additionalProperties": False,
        "minProperties": 1,
        "oneOf": [{"required": [key]} for key in sorted(checks)],
    }


def _matcher() -> Schema:
    """An argument value: a literal (exact match) or a matcher mapping with one matcher key."""
    options = {
        "optional": BOOLEAN,
        "tolerance_minutes": {"type": "number", "minimum": 0},
        "flavor": FLAVOR,
        "ignore_case": BOOLEAN,
    }
    kinds = {
        "exact": ANYTHING,
        "contains": ANYTHING,
        "regex": TEXT,
        "date": TEXT,
        "one_of": {"type": "array", "items": {"$ref": MATCHER}, "minItems": 1},
        "any": ANYTHING,
        "schema": MAPPING,
        "text": ANYTHING,
        "expr": TEXT,
    }
    matcher = closed([*matchers.MATCHER_KEYS, *matchers.MATCHER_OPTIONS], {**kinds, **options})
    matcher["oneOf"] = [{"required": [key]} for key in sorted(matchers.MATCHER_KEYS)]
    literal = {
        "not": {"type": "object", "anyOf": [{"required": [key]} for key in sorted(matchers.MATCHER_KEYS)]}
    }
    return {"anyOf": [literal, matcher]}


def schema() -> Schema:
    refs, defs = model_schemas([ServerConfig])
    checks: Schema = {"type": "array", "items": {"$ref": CHECK}}
    turn = closed(own.TURN_KEYS, {"user": SCALAR_TEXT, "expect": checks})
    judge_context = accepted(lambda r: own._Own(r).judge_context({})).keys
    body = closed(
        own.CASE_KEYS,
        {
            "name": SCALAR_TEXT,
            "id": SCALAR_TEXT,
            "prompt": SCALAR_TEXT,
            "turns": {"type": "array", "items": turn},
            "expect": checks,
            "context": MAPPING,
            "judge_context": closed(judge_context, dict.fromkeys(judge_context, BOOLEAN)),
            "system": TEXT,
            "body": ANYTHING,
            "skip": BOOLEAN,
            "tags": one_or_more(SCALAR_TEXT),
            "servers": {
                "type": "object",
                "propertyNames": SERVER_NAME,
                "additionalProperties": refs["ServerConfig"],
            },
            "agent": agent(),
            "target": target(),
        },
    )
    body["not"] = {"required": ["prompt", "turns"]}
    defs |= {"Check": _check(), "ArgumentMatcher": _matcher(), "Transport": any_case(Transport)}
    return document(
        "toolproof agent scenario",
        "One YAML document is one agent case: a prompt or turns of user messages, checks per turn and on the "
        "whole conversation, and optionally the servers, agent or HTTP target `toolproof eval` runs it with.",
        body,
        defs,
    )
