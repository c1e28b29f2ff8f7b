"""MCPLab eval configs and library test cases, as `load.mcplab` reads them.

The loader reads them by hand (a `Reader`), so this schema is built from its key lists (`CONFIG_KEYS`,
`SCENARIO_KEYS`, `REF_KEYS`, `EVAL_KEYS`, `TEXT_TYPES`, `JSONPATH_TYPES`) and, for what toolproof keeps
without reading (agents, server pools, attachments, snapshot settings), MCPLab's documented config shape.
"""

from __future__ import annotations

from toolproof.load import mcplab
from toolproof.schemas.shapes import (
    ANYTHING,
    BOOLEAN,
    MAPPING,
    SCALAR_TEXT,
    TEXT,
    Schema,
    closed,
    document,
    texts,
)

SCENARIO = "#/$defs/Scenario"


def _typed(types: list[str], keys: dict[str, Schema], needs: dict[str, str]) -> Schema:
    """An item with a `type` among `types` and the key each type needs."""
    body = closed(["type", *keys], {"type": {"enum": types}, **keys}, required=["type"])
    body["allOf"] = [
        {"if": {"properties": {"type": {"const": kind}}}, "then": {"required": [needs[kind]]}}
        for kind in types
        if kind in needs
    ]
    return body


def _eval() -> Schema:
    text_needs = dict.fromkeys(mcplab.TEXT_TYPES, "value") | {"regex": "pattern"}
    response = _typed(
        [*mcplab.TEXT_TYPES, "regex", *mcplab.JSONPATH_TYPES],
        {"value": SCALAR_TEXT, "pattern": SCALAR_TEXT, "path": SCALAR_TEXT, "equals": ANYTHING},
        text_needs | dict.fromkeys(mcplab.JSONPATH_TYPES, "path"),
    )
    tool_input = _typed(
        ["contains", "regex", "jsonpath"],
        {
            "tool": SCALAR_TEXT,
            "value": SCALAR_TEXT,
            "pattern": SCALAR_TEXT,
            "path": SCALAR_TEXT,
            "equals": ANYTHING,
        },
        {"contains": "value", "regex": "pattern", "jsonpath": "path"},
    )
    context = ("include_prompt", "include_tool_sequence", "include_tool_inputs")
    return closed(
        mcplab.EVAL_KEYS,
        {
            "tool_constraints": closed(
                ("required_tools", "forbidden_tools"), {"required_tools": texts(), "forbidden_tools": texts()}
            ),
            "tool_sequence": {
                "anyOf": [
                    texts(),
                    closed(["allow"], {"allow": {"type": "array", "items": texts()}}, required=["allow"]),
                ]
            },
            "tool_input_assertions": {"type": "array", "items": tool_input},
            "response_assertions": {"type": "array", "items": response},
            "agent_context": closed(context, dict.fromkeys(context, BOOLEAN)),
            "agent_assertions": {
                "type": "array",
                "items": closed(
                    ("label", "prompt"), {"label": SCALAR_TEXT, "prompt": SCALAR_TEXT}, required=["prompt"]
                ),
            },
        },
    )


def _agent() -> Schema:
    """An agent entry (MCPLab's documented shape; toolproof keeps it for `eval`)."""
    return {
        "type": "object",
        "properties": {
            "ref": TEXT,
            "id": TEXT,
            "name": TEXT,
            "provider": {"enum": ["openai", "anthropic", "azure_openai", "azure"]},
            "model": TEXT,
            "temperature": {"type": "number", "minimum": 0, "maximum": 2},
            "max_tokens": {"type": "integer", "minimum": 1, "maximum": 200000},
            "max_turns": {"type": "integer", "minimum": 1},
            "system": TEXT,
        },
    }


def schema() -> Schema:
    scenario = closed(
        mcplab.SCENARIO_KEYS,
        {
            "id": SCALAR_TEXT,
            "name": SCALAR_TEXT,
            "agent": TEXT,
            "servers": texts(),
            "mcp_servers": {"type": "array", "items": MAPPING},
            "prompt": SCALAR_TEXT,
            "attachments": {"type": "array", "items": MAPPING},
            "snapshot_eval": MAPPING,
            "eval": _eval(),
            "extract": {
                "type": "array",
                "items": closed(
                    ("name", "from", "regex"),
                    {"name": SCALAR_TEXT, "from": TEXT, "regex": TEXT},
                    required=["name", "regex"],
                ),
            },
            "description": TEXT,
            "tags": texts(),
        },
    )
    reference = closed(
        mcplab.REF_KEYS,
        {"ref": SCALAR_TEXT, "mcp_servers": {"type": "array", "items": MAPPING}},
        required=["ref"],
    )
    config = closed(
        mcplab.CONFIG_KEYS,
        {
            "name": SCALAR_TEXT,
            "agents": {"type": "array", "items": _agent()},
            "scenarios": {
                "type": "array",
                "items": {"if": {"required": ["ref"]}, "then": reference, "else": {"$ref": SCENARIO}},
            },
            "run_defaults": closed(mcplab.RUN_DEFAULTS_KEYS, {"selected_agents": {**texts(), "minItems": 1}}),
            "servers": {"type": ["array", "object"]},
        },
        required=["scenarios"],
    )
    return document(
        "MCPLab eval config or test case (as toolproof reads it)",
        "An MCPLab eval config (agents, scenarios with eval blocks, run_defaults), or one library test case.",
        {"if": {"required": ["scenarios"]}, "then": config, "else": {"$ref": SCENARIO}},
        {"Scenario": scenario},
    )
