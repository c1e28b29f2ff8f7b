"""Probe findings written as runnable toolproof cases (`--output DIR`), one YAML file per case.

Audit writes a passing case per healthy tool (what the tool answered today: `not_error` or `is_error`).
Fuzz writes a case per finding that fails today and passes once the server is fixed: the minimised input,
expecting any answer that is not an internal error (for a hang, within the probe's timeout). Header values
are never written: each is read from an environment variable named after the header. Keys are written in
the order a suite reads them (`name`, `server`, ..., `assert`), after the `# yaml-language-server` line the
examples have, pointing at the mcp-assert schema toolproof ships.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Mapping
from importlib.resources import files
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from toolproof.mcp.spec import ConnectSpec
from toolproof.model.server_config import Transport


def server_block(spec: ConnectSpec) -> dict[str, Any]:
    """The `server:` block that reaches the probed server again."""
    if spec.transport is Transport.STDIO:
        return {"command": spec.command, "args": list(spec.args)}
    block: dict[str, Any] = {"transport": spec.transport.value, "url": spec.url}
    if spec.headers:
        block["headers"] = {name: f"${{{_env_name(name)}}}" for name in spec.headers}
    return block


def _env_name(header: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "_", header).upper()


def file_name(text: str) -> str:
    """A file-system-safe stem for a case name."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")[:80] or "case"


def schema_line(directory: Path) -> str:
    """The comment that lets an editor check a case file in `directory` against the shipped schema."""
    schema = Path(str(files("toolproof") / "schemas" / "mcp-assert.schema.json"))
    try:
        where = Path(os.path.relpath(schema, directory.resolve())).as_posix()
    except ValueError:  # another drive (Windows): no relative path
        where = schema.as_uri()
    return f"# yaml-language-server: $schema={where}\n"


def render(case: Mapping[str, Any]) -> str:
    """The case as YAML, its keys in the order given."""
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.allow_unicode = True
    yaml.representer.sort_base_mapping_type_on_output = False
    stream = io.StringIO()
    yaml.dump(dict(case), stream)
    return stream.getvalue()


def write_cases(directory: Path, cases: Mapping[str, Mapping[str, Any]]) -> list[Path]:
    """Write each case to DIR/<stem>.yaml (stems made unique); returns the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    used: set[str] = set()
    for stem, case in cases.items():
        unique, counter = file_name(stem), 1
        while unique in used:
            counter += 1
            unique = f"{file_name(stem)}_{counter}"
        used.add(unique)
        path = directory / f"{unique}.yaml"
        path.write_text(schema_line(directory) + render(case), encoding="utf-8")
        written.append(path)
    return written
