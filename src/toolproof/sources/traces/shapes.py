"""How each trace format is recognised: cheap tests of the data's shape, with no reader imported.

`read_traces` tries them in its order and imports only the reader of the format that matched.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def otel(document: Any) -> bool:
    """An OpenTelemetry OTLP/JSON export."""
    return isinstance(document, Mapping) and isinstance(document.get("resourceSpans"), list)


def mibo_legacy(document: Any) -> bool:
    """A Mibo legacy `{data, metadata}` body."""
    return (
        isinstance(document, Mapping)
        and "data" in document
        and set(document) <= {"data", "metadata", "platformId", "externalMetadata"}
    )


def mibo_canonical(document: Any) -> bool:
    """A Mibo canonical `{spans}` body."""
    return isinstance(document, Mapping) and isinstance(document.get("spans"), list)


def native(document: Any) -> bool:
    """toolproof's own transcript JSON: one run (`turns`) or several (`runs`)."""
    if isinstance(document, Mapping) and isinstance(document.get("runs"), list):
        return True
    return isinstance(document, Mapping) and isinstance(document.get("turns"), list)


def mcplab_trace(records: list[Any]) -> bool:
    """JSON lines whose records are MCPLab's `trace_meta` / `scenario_run`."""
    return any(
        isinstance(record, Mapping) and record.get("type") in ("trace_meta", "scenario_run")
        for record in records
    )


def mcplab_results(document: Any) -> bool:
    """An MCPLab run's `results.json` (a summary of the runs, without their messages)."""
    return isinstance(document, Mapping) and {"metadata", "summary", "scenarios"} <= set(document)


def audit_log(records: list[Any]) -> bool:
    """JSON lines of an mcp-assert audit log (one tool call per record)."""
    return any(isinstance(record, Mapping) and isinstance(record.get("tool"), str) for record in records)
