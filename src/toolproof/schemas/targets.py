"""Shapes shared by the agent formats: an HTTP target (`load.target`), MCP servers by name
(`load.agent_setup`), an agent's settings."""

from __future__ import annotations

from toolproof.load import agent_setup
from toolproof.load.target import METHODS, PLATFORMS, TARGET_KEYS
from toolproof.schemas.shapes import DURATION, INTEGER, TEXT, Schema, closed

SERVER_NAME: Schema = {"pattern": "^[A-Za-z0-9_-]+$"}


def target() -> Schema:
    """An agent reached over HTTP (`target:`)."""
    auth = {
        "oneOf": [
            closed(["bearer_env"], {"bearer_env": TEXT}, required=["bearer_env"]),
            closed(
                ["header", "env", "scheme"],
                {"header": TEXT, "env": TEXT, "scheme": TEXT},
                required=["header", "env"],
            ),
            {"enum": ["none", None]},
        ]
    }
    return closed(
        TARGET_KEYS,
        {
            "url": {"type": "string", "pattern": r"^(https?://|\$)"},
            "method": {"enum": [*METHODS, *(method.lower() for method in METHODS)]},
            "headers": {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean"]}},
            "auth": auth,
            "body": {},
            "message_template": {},
            "response_path": TEXT,
            "trace_path": TEXT,
            "platform": {"enum": list(PLATFORMS)},
            "timeout": DURATION,
            "request_id_header": TEXT,
        },
        required=["url"],
        description="an agent that already runs behind an HTTP endpoint",
    )


def agent() -> Schema:
    """An agent's settings (`agent:` of a scenario)."""
    return closed(
        agent_setup.AGENT_KEYS,
        {
            "provider": {"type": "string", "minLength": 1},
            "model": {"type": "string", "minLength": 1},
            "system": {"type": "string", "minLength": 1},
            "max_steps": {**INTEGER, "minimum": 1},
            "temperature": {"type": "number", "minimum": 0, "maximum": 2},
            "max_tokens": {**INTEGER, "minimum": 1},
        },
    )
