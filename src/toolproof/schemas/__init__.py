"""JSON Schemas (draft 2020-12) of every file format toolproof reads, generated from the models and key
lists its loaders use, so a schema cannot say other than the loader.

The generated files sit beside this module (shipped with the package) and in the repository's `schemas/`
folder; `toolproof schema FORMAT` prints one. Regenerate both with `python -m toolproof.schemas`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import Any

FORMATS: dict[str, str] = {
    "mcp-assert": "mcp_assert",
    "scenario": "scenario",
    "mcplab": "mcplab",
    "mibo": "mibo",
    "promptkit": "promptkit",
    "project": "project",
    "script": "script",
}
"""Format name -> the module of this package that builds its schema."""

HERE = Path(__file__).resolve().parent


def build(name: str) -> dict[str, Any]:
    """The schema of format `name` (a key of FORMATS), built now from the loader's models."""
    builder: Callable[[], dict[str, Any]] = import_module(f"{__name__}.{FORMATS[name]}").schema
    return builder()


def file_name(name: str) -> str:
    return f"{name}.schema.json"


def render(schema: dict[str, Any]) -> str:
    """The schema as the stored files hold it."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def stored(name: str) -> str:
    """The schema of format `name` as shipped in the package."""
    return (HERE / file_name(name)).read_text(encoding="utf-8")


def write(folder: Path) -> list[Path]:
    """Write every schema into `folder`; returns the files written."""
    written = []
    for name in FORMATS:
        path = folder / file_name(name)
        path.write_text(render(build(name)), encoding="utf-8")
        written.append(path)
    return written
