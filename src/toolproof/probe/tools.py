"""Facts about one tool definition as tools/list sends it (pure)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

Tool = Mapping[str, Any]
"""A tool definition as tools/list sends it."""


def tool_name(tool: Mapping[str, Any]) -> str:
    return str(tool.get("name", ""))


def write_hint(tool: Mapping[str, Any]) -> str | None:
    """The annotation that says the tool may write, `destructiveHint: true` or else `readOnlyHint: false`;
    None when neither is set."""
    hints = tool.get("annotations")
    if not isinstance(hints, Mapping):
        return None
    if hints.get("destructiveHint") is True:
        return "destructiveHint: true"
    return "readOnlyHint: false" if hints.get("readOnlyHint") is False else None


def is_destructive(tool: Mapping[str, Any]) -> bool:
    """Annotated `destructiveHint: true` or `readOnlyHint: false`: a probe calls it only when told to."""
    return write_hint(tool) is not None


def skip_reason(tool: Mapping[str, Any]) -> str:
    """Why a probe did not call a tool that may write, naming the annotation that says so."""
    return f"may write (annotated {write_hint(tool)}): --include-writes calls it"


def input_schema(tool: Mapping[str, Any]) -> Mapping[str, Any]:
    schema = tool.get("inputSchema")
    return schema if isinstance(schema, Mapping) else {}


class ToolsFileError(ValueError):
    """A --tools-file that is not a saved tools/list result; the message names the file and line."""


def load_tools_file(path: Path) -> list[dict[str, Any]]:
    """The tools of a saved tools/list result: `{"tools": [...]}`, a JSON-RPC response holding one, or a bare
    list of tools. Raises ToolsFileError."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ToolsFileError(f"{path}: cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise ToolsFileError(f"{path}: not UTF-8 text ({error.reason})") from None
    except json.JSONDecodeError as error:
        raise ToolsFileError(f"{path}:{error.lineno}:{error.colno}: not JSON: {error.msg}") from None
    if isinstance(document, dict) and isinstance(document.get("result"), dict):
        document = document["result"]
    tools = document.get("tools") if isinstance(document, dict) else document
    if not isinstance(tools, list):
        raise ToolsFileError(f'{path}: expected a tools/list result ({{"tools": [...]}}) or a list of tools')
    for index, tool in enumerate(tools):
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            raise ToolsFileError(f"{path}: tools[{index}]: expected an object with a string name")
    return tools
