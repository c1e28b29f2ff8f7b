"""The mcp-assert case (one YAML document per case), from the models `load.mcp_assert` validates it with.

The loader maps the document's top-level keys onto `Case`: each block key onto its block model, the
trajectory keys onto `TrajectoryBlock`. The schema keeps that shape, built from the same models and the
loader's own key lists.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from toolproof.load import mcp_assert
from toolproof.model.server_case import (
    AssertBlock,
    CompletionBlock,
    LoggingBlock,
    NotificationsBlock,
    PromptsBlock,
    ResourcesBlock,
    SamplingBlock,
    SetupStep,
    SkillsBlock,
    ToolsBlock,
    TraceEntry,
    TrajectoryCheck,
)
from toolproof.model.server_config import ServerConfig, Transport
from toolproof.schemas.shapes import (
    BOOLEAN,
    DURATION,
    SCALAR_TEXT,
    Schema,
    any_case,
    closed,
    document,
    model_schemas,
    one_or_more,
)

BLOCK_MODELS: dict[str, type[BaseModel]] = {
    "assert": AssertBlock,
    "assert_resources": ResourcesBlock,
    "assert_prompts": PromptsBlock,
    "assert_completion": CompletionBlock,
    "assert_sampling": SamplingBlock,
    "assert_logging": LoggingBlock,
    "assert_notifications": NotificationsBlock,
    "assert_tools": ToolsBlock,
    "assert_skills": SkillsBlock,
}


def _without_kind(defs: Schema) -> Schema:
    """The block models' `kind` is the union's tag, filled in by the loader: never written in a file."""
    cleaned: dict[str, Any] = {}
    for name, schema in defs.items():
        properties = {key: value for key, value in schema.get("properties", {}).items() if key != "kind"}
        cleaned[name] = {**schema, "properties": properties} if "properties" in schema else schema
    return cleaned


def schema() -> Schema:
    refs, defs = model_schemas([*BLOCK_MODELS.values(), ServerConfig, SetupStep, TrajectoryCheck, TraceEntry])
    types: dict[str, Schema] = {
        "name": {**SCALAR_TEXT, "description": "what the case proves (default: the file name)"},
        "server": refs["ServerConfig"],
        "setup": {"type": "array", "items": refs["SetupStep"]},
        "timeout": DURATION,
        "skip": BOOLEAN,
        "skip_unless_env": {**SCALAR_TEXT, "description": "skipped when this variable is empty"},
        "isolate": {**BOOLEAN, "description": "always a fresh server of its own, even with --reuse-server"},
        "snapshot_masks": {
            **one_or_more(),
            "description": "patterns masked in the answer before `toolproof snapshot` compares it",
        },
        "trajectory": {"type": "array", "items": refs["TrajectoryCheck"]},
        "trace": {"type": "array", "items": refs["TraceEntry"]},
        "audit_log": SCALAR_TEXT,
    }
    types.update({key: refs[model.__name__] for key, model in BLOCK_MODELS.items()})
    body = closed(mcp_assert.KEYS, types)
    body["anyOf"] = [{"required": [key]} for key in mcp_assert.BLOCKS]
    return document(
        "toolproof / mcp-assert case",
        "One YAML document is one case: a server, optional setup calls and one block (assert, "
        "assert_resources, assert_prompts, assert_completion, assert_sampling, assert_logging, "
        "assert_notifications, assert_tools, assert_skills or trajectory) with its expectations.",
        body,
        {**_without_kind(defs), "Transport": any_case(Transport)},
    )
