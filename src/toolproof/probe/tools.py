"""Facts about one tool definition as tools/list sends it (pure)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def tool_name(tool: Mapping[str, Any]) -> str:
    return str(tool.get("name", ""))


def is_destructive(tool: Mapping[str, Any]) -> bool:
    """Annotated `destructiveHint: true` or `readOnlyHint: false`: a probe calls it only when told to."""
    hints = tool.get("annotations")
    if not isinstance(hints, Mapping):
        return False
    return hints.get("destructiveHint") is True or hints.get("readOnlyHint") is False


def input_schema(tool: Mapping[str, Any]) -> Mapping[str, Any]:
    schema = tool.get("inputSchema")
    return schema if isinstance(schema, Mapping) else {}
