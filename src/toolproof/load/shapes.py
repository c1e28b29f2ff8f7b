"""How each dialect is recognised: cheap tests of a document's shape, with no loader imported.

`load/dialects.py` tries them in its order and imports only the loader of the dialect that matched; each
loader module names its own test `detect`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolproof.load.yaml_source import Document

MCP_ASSERT_BLOCKS = (
    "trajectory",
    "assert_resources",
    "assert_prompts",
    "assert_completion",
    "assert_sampling",
    "assert_logging",
    "assert_notifications",
    "assert_tools",
    "assert_skills",
    "assert",
)
"""mcp-assert block keys in its order of precedence: the first one present is the case's request."""

MCPLAB_LIBRARY_FILES = frozenset({"agents.yaml", "agents.yml", "servers.yaml", "servers.yml"})
"""MCPLab library files that hold no cases."""

PROJECT_FILE = "toolproof.yaml"
"""toolproof's project file (`load/project_file.py`), which holds no cases."""

_MCP_ASSERT_KEYS = frozenset({"server", "setup", *MCP_ASSERT_BLOCKS})


def settings_file(path: Path, data: object) -> bool:
    """One of toolproof's own files that may sit among cases and holds none: the project file
    (`toolproof.yaml`), or a script of the scripted model (a `scenarios` mapping only)."""
    if path.name == PROJECT_FILE:
        return True
    return isinstance(data, Mapping) and set(data) == {"scenarios"} and isinstance(data["scenarios"], Mapping)


def _data(document: object) -> Any:
    return document.data if isinstance(document, Document) else document


def promptkit(document: object) -> bool:
    """A PromptKit Scenario manifest."""
    data = _data(document)
    if not isinstance(data, Mapping):
        return False
    api = data.get("apiVersion")
    return data.get("kind") == "Scenario" and (
        (isinstance(api, str) and api.startswith("promptkit.")) or isinstance(data.get("spec"), Mapping)
    )


def mibo_content(data: Mapping[str, Any]) -> tuple[Mapping[str, Any], tuple[str, ...]]:
    """The Mibo case itself, and its path: the document, or its `content` when it wraps the case."""
    inner = data.get("content")
    if isinstance(inner, Mapping) and "scenario" in inner:
        return inner, ("content",)
    return data, ()


def mibo(document: object) -> bool:
    """A Mibo test case: `scenario` with `input_utterance`, `turns`, `custom_body` or `assertions` (possibly
    wrapped in `{"context", "content"}`)."""
    data = _data(document)
    if not isinstance(data, Mapping):
        return False
    case, _ = mibo_content(data)
    return "scenario" in case and bool({"input_utterance", "turns", "custom_body", "assertions"} & set(case))


def mcplab_not_cases(document: object) -> bool:
    """A file of an MCPLab library that holds no cases: `agents.yaml` or `servers.yaml` (a mapping of ids to
    entries), or a run's `results.json` (metadata, summary and the scenarios' results)."""
    data = _data(document)
    if not isinstance(data, Mapping):
        return False
    if {"metadata", "summary", "scenarios"} <= set(data):
        return True
    named = isinstance(document, Document) and document.file.name in MCPLAB_LIBRARY_FILES
    return named and all(isinstance(entry, Mapping) for entry in data.values())


def mcplab(document: object) -> bool:
    """An MCPLab eval config (`scenarios` of ids, refs or prompts), a library test case (`prompt`), or a file
    of an MCPLab library that holds no cases (`load` gives nothing for it)."""
    data = _data(document)
    if not isinstance(data, Mapping):
        return False
    if mcplab_not_cases(document):
        return True
    scenarios = data.get("scenarios")
    if isinstance(scenarios, list):
        return any(
            isinstance(item, Mapping) and {"id", "ref", "prompt", "eval"} & set(item) for item in scenarios
        )
    return "prompt" in data and ("eval" in data or "id" in data) and "expect" not in data


def scenario_file(document: object) -> bool:
    """toolproof's own format: a top-level `expect` list, or `turns` whose items have `user`."""
    data = _data(document)
    if not isinstance(data, Mapping):
        return False
    if isinstance(data.get("expect"), list):
        return True
    turns = data.get("turns")
    return isinstance(turns, list) and any(isinstance(item, Mapping) and "user" in item for item in turns)


def mcp_assert(document: object) -> bool:
    """A document is mcp-assert when it has a block, `trajectory`, `server` or `setup` key."""
    data = _data(document)
    return isinstance(data, dict) and any(
        key in _MCP_ASSERT_KEYS or key.startswith("assert_") for key in data
    )
