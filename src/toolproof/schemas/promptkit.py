"""PromptKit `Scenario` manifests, as `load.promptkit` reads them.

The loader reads them by hand (a `Reader`), so this schema is built from its key lists (`TOP_KEYS`,
`SPEC_KEYS`, `TURN_KEYS`, `ASSERTION_KEYS`, `PARAMS`); the spec keys toolproof accepts but does not use keep
the open shape of PromptKit's own documentation.
"""

from __future__ import annotations

from toolproof.load import promptkit
from toolproof.schemas.agent_checks import precondition
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

PARAM_TYPES: dict[str, Schema] = {
    "patterns": one_or_more(),
    "pattern": TEXT,
    "tools": one_or_more(),
    "tool_name": TEXT,
    "tool": TEXT,
    "min": INTEGER,
    "max": INTEGER,
    "expected_args": MAPPING,
    "required_args": MAPPING,
    "args_match": MAPPING,
    "guardrail": TEXT,
    "validator": TEXT,
    "expected": BOOLEAN,
    "assertions": BOOLEAN,
    "criteria": SCALAR_TEXT,
    "rubric": SCALAR_TEXT,
    "model": TEXT,
    "system_prompt": TEXT,
    "extra": ANYTHING,
    "eval_type": {"enum": list(promptkit.JUDGE_TYPES)},
    "eval_params": MAPPING,
    "min_score": SHARE,
}


def _assertion() -> Schema:
    base = closed(
        promptkit.ASSERTION_KEYS,
        {
            "type": {"enum": list(promptkit.PARAMS)},
            "params": MAPPING,
            "message": SCALAR_TEXT,
            "when": precondition(),
            "pass_threshold": SHARE,
        },
        required=["type"],
    )
    base["allOf"] = [
        {
            "if": {"properties": {"type": {"const": kind}}},
            "then": {"properties": {"params": closed(keys, {key: PARAM_TYPES[key] for key in keys})}},
        }
        for kind, keys in promptkit.PARAMS.items()
    ]
    return base


def schema() -> Schema:
    assertions: Schema = {"type": "array", "items": {"$ref": "#/$defs/Assertion"}}
    turn_types: dict[str, Schema] = dict.fromkeys(promptkit.TURN_KEYS, ANYTHING)
    turn_types |= {"role": TEXT, "content": SCALAR_TEXT, "assertions": assertions, "parts": {"type": "array"}}
    spec_types: dict[str, Schema] = dict.fromkeys(promptkit.SPEC_KEYS, ANYTHING)
    spec_types |= {
        "id": SCALAR_TEXT,
        "task_type": TEXT,
        "description": TEXT,
        "turns": {"type": "array", "items": closed(promptkit.TURN_KEYS, turn_types)},
        "context": MAPPING,
        "conversation_assertions": assertions,
        "providers": texts(),
    }
    body = closed(
        promptkit.TOP_KEYS,
        {
            "apiVersion": {"type": "string", "pattern": "^promptkit\\."},
            "kind": {"const": "Scenario"},
            "metadata": MAPPING,
            "spec": closed(promptkit.SPEC_KEYS, spec_types),
        },
        required=["spec"],
    )
    return document(
        "PromptKit Scenario (as toolproof reads it)",
        "A PromptKit Scenario manifest: turns with assertions and conversation assertions. Assertion types "
        "toolproof checks: " + ", ".join(promptkit.PARAMS) + ".",
        body,
        {"Assertion": _assertion()},
    )
