"""Mibo test cases (JSON), as `load.mibo` reads them.

The loader reads them by hand (a `Reader`), so this schema is built from its key lists (`CASE_KEYS`,
`TURN_KEYS`, `ASSERTIONS_KEYS`, `TARGET_KEYS`, `TOOL_CALL_KEYS`, `SEMANTIC_KEYS`, `MATCHER_KEYS`) and Mibo's
documented shapes: a case is the document itself or, wrapped, its `content` beside a `context`.
"""

from __future__ import annotations

from toolproof.load import mibo
from toolproof.schemas.shapes import (
    ANYTHING,
    BOOLEAN,
    INTEGER,
    MAPPING,
    SCALAR_TEXT,
    SHARE,
    TEXT,
    Schema,
    closed,
    document,
    one_or_more,
    texts,
)

VALUE = "#/$defs/ExpectedValue"
CONDITIONS = [*mibo.CONDITIONS]

KEY_TYPES: dict[str, Schema] = {
    "condition": {"enum": [*CONDITIONS, "EQUALS", "NOT_EQUALS"]},
    "expected_name": SCALAR_TEXT,
    "expected_arguments": {"type": "object", "additionalProperties": {"$ref": VALUE}},
    "expected_index": INTEGER,
    "strict": BOOLEAN,
    "forbidden_arguments": texts(),
    "expected_tool_calls": {"type": "array", "items": {"$ref": "#/$defs/ToolCall"}},
    "expected_count": INTEGER,
    "field": TEXT,
    "expected_value": {"$ref": VALUE},
    "pattern": TEXT,
    "should_match": BOOLEAN,
    "schema": MAPPING,
    "expected_status": {"type": "integer", "minimum": 100},
    "max_ms": {"type": "number", "minimum": 0},
    "max_total_tokens": INTEGER,
    "max_output_tokens": INTEGER,
    "max_input_tokens": INTEGER,
    "target": {"enum": list(mibo.TARGET_KEYS)},
    "id": SCALAR_TEXT,
    "depends_on": one_or_more(SCALAR_TEXT),
}


def _procedural() -> Schema:
    common = list(mibo.COMMON)
    keys = sorted({key for listed in mibo.TARGET_KEYS.values() for key in listed} | set(common))
    body = closed(keys, {key: KEY_TYPES[key] for key in keys}, required=["target"])
    body["allOf"] = [
        {
            "if": {"properties": {"target": {"const": target}}},
            "then": closed([*common, *listed], {key: KEY_TYPES[key] for key in [*common, *listed]}),
        }
        for target, listed in mibo.TARGET_KEYS.items()
    ]
    return body


def _matcher() -> Schema:
    """A literal (exact) or a matcher object; `one_of` variants may also be JSON Schemas."""
    matcher = closed(
        mibo.MATCHER_KEYS,
        {
            "matcher": {"enum": list(mibo.MATCHERS)},
            "value": ANYTHING,
            "expression": TEXT,
            "variants": {"type": "array"},
            "tolerance_minutes": {"type": "number", "minimum": 0},
            "optional": BOOLEAN,
        },
        required=["matcher"],
    )
    return {"anyOf": [{"not": {"type": "object", "required": ["matcher"]}}, matcher]}


def schema() -> Schema:
    semantic = closed(
        mibo.SEMANTIC_KEYS,
        {
            "criteria": SCALAR_TEXT,
            "threshold": SHARE,
            "type": {"enum": ["quality_check", "hallucination_check"]},
            "negative_constraints": texts(),
            "target_node": TEXT,
            "output_key": TEXT,
            "id": SCALAR_TEXT,
            "depends_on": one_or_more(SCALAR_TEXT),
        },
        required=["criteria"],
    )
    assertions = closed(
        mibo.ASSERTIONS_KEYS,
        {
            "procedural": {"type": "array", "items": {"$ref": "#/$defs/Procedural"}},
            "semantic": {"type": "array", "items": semantic},
        },
    )
    turn = closed(
        mibo.TURN_KEYS,
        {"input_utterance": SCALAR_TEXT, "assertions": assertions},
        required=["input_utterance"],
    )
    case = closed(
        mibo.CASE_KEYS,
        {
            "scenario": SCALAR_TEXT,
            "name": SCALAR_TEXT,
            "id": SCALAR_TEXT,
            "input_utterance": SCALAR_TEXT,
            "turns": {"type": "array", "items": turn},
            "custom_body": ANYTHING,
            "context": MAPPING,
            "optimization_target": ANYTHING,
            "test_dimension": ANYTHING,
            "assertions": assertions,
            "status": {"enum": ["active", "paused", "draft"]},
            "tags": one_or_more(),
            "description": TEXT,
        },
        required=["scenario"],
    )
    wrapped = closed(
        ["context", "content"],
        {"context": MAPPING, "content": {"$ref": "#/$defs/Case"}},
        required=["content"],
    )
    tool_call_keys = mibo.TOOL_CALL_KEYS
    tool_call = closed(tool_call_keys, {key: KEY_TYPES[key] for key in tool_call_keys})
    return document(
        "Mibo test case (as toolproof reads it)",
        "A Mibo test case: a scenario, one utterance or turns, procedural and semantic assertions, context "
        "variables; or {context, content} wrapping one.",
        {"if": {"required": ["content"]}, "then": wrapped, "else": {"$ref": "#/$defs/Case"}},
        {"Case": case, "Procedural": _procedural(), "ToolCall": tool_call, "ExpectedValue": _matcher()},
    )
