"""What every lint rule shares: the finding it reports, its severity, and the facts it reads from a tool."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from toolproof.probe.tools import Tool

SERVER = "(server)"
ALL_TOOLS = "(all tools)"


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Finding:
    """One rule broken by one tool (or by the tool list as a whole); `field` locates it (`args.NAME`)."""

    tool: str
    code: str
    severity: Severity
    message: str
    field: str
    rule: str


ERROR_CODES = frozenset({"E101", "E102", "E103", "E105", "E112", "E113", "E301"})


def finding(tool: str, code: str, rule: str, message: str, field: str) -> Finding:
    severity = Severity.ERROR if code in ERROR_CODES else Severity.WARNING
    return Finding(tool, code, severity, message, field, rule)


def description_of(tool: Tool) -> str:
    text = tool.get("description")
    return text if isinstance(text, str) else ""


def name_of(tool: Tool) -> str:
    return str(tool.get("name", ""))


def properties_of(tool: Tool) -> dict[str, Mapping[str, Any]]:
    schema = tool.get("inputSchema")
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(props, Mapping):
        return {}
    return {str(key): value for key, value in props.items() if isinstance(value, Mapping)}


def required_of(tool: Tool) -> set[str]:
    schema = tool.get("inputSchema")
    required = schema.get("required") if isinstance(schema, Mapping) else None
    return {str(name) for name in required} if isinstance(required, list) else set()


def prop_description(prop: Mapping[str, Any]) -> str:
    text = prop.get("description")
    return text.strip() if isinstance(text, str) else ""


def token_cost(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()) // 4
