"""`<suite>/.snapshots.json`: the golden answers, in mcp-assert's shape so that either tool reads the other's.

```json
{"snapshots": [{"name": "...", "tool": "...", "text": "...", "is_error": false,
                "checksum": "9f86d081884c7d65"}],
 "tool_lists": [{"server": "npx @modelcontextprotocol/server-memory", "tools": [{"name": "...", ...}]}]}
```
`checksum` is the first 8 bytes of the text's SHA-256 in hex, as mcp-assert writes it. `tool_lists` is
toolproof's own (each server's `tools/list`); mcp-assert ignores the key (and drops it when it rewrites the
file).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

SNAPSHOT_FILE = ".snapshots.json"


class SnapshotEntry(BaseModel):
    """One case's answer as it was recorded."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    name: str
    tool: str = ""
    text: str = ""
    is_error: bool = False
    checksum: str = ""


class ToolList(BaseModel):
    """A server's tools as `tools/list` declared them when the snapshot was taken."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    server: str
    tools: list[dict[str, Any]] = Field(default_factory=list)


class SnapshotFile(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    snapshots: list[SnapshotEntry] | None = None
    tool_lists: list[ToolList] | None = None

    def by_name(self) -> dict[str, SnapshotEntry]:
        return {entry.name: entry for entry in self.snapshots or []}

    def tools_of(self, server: str) -> list[dict[str, Any]] | None:
        return next((item.tools for item in self.tool_lists or [] if item.server == server), None)


class SnapshotFileError(Exception):
    """A snapshot file that cannot be read; the message names the file, and the line when it is not JSON."""


def checksum(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).digest()[:8].hex()


def entry(name: str, tool: str, text: str, is_error: bool) -> SnapshotEntry:
    return SnapshotEntry(name=name, tool=tool, text=text, is_error=is_error, checksum=checksum(text))


def snapshot_path(suite_dir: Path) -> Path:
    return suite_dir / SNAPSHOT_FILE


def read_snapshots(path: Path) -> SnapshotFile:
    """The file's snapshots; an empty SnapshotFile when it does not exist."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return SnapshotFile()
    except (OSError, UnicodeDecodeError) as error:
        raise SnapshotFileError(f"{path}: cannot read: {error}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise SnapshotFileError(f"{path}:{error.lineno}:{error.colno}: not JSON: {error.msg}") from None
    try:
        return SnapshotFile.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise SnapshotFileError(f"{path}: {where}: {first['msg']}") from None


def render_snapshots(snapshots: SnapshotFile) -> str:
    """The file's text: two-space indented JSON with a final newline, as mcp-assert writes it."""
    data: dict[str, Any] = {"snapshots": [item.model_dump() for item in snapshots.snapshots or []]}
    if snapshots.tool_lists:
        data["tool_lists"] = [item.model_dump() for item in snapshots.tool_lists]
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
