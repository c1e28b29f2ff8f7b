"""Run the authoring commands in-process against real servers."""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from toolproof.cli import main

ROOT = Path(__file__).resolve().parents[3]
TINY = ROOT / "examples" / "servers" / "tiny_server.py"
NOTES = ROOT / "examples" / "servers" / "notes_server.py"


@dataclass
class Outcome:
    status: int
    out: str
    err: str
    report: dict[str, Any]

    def verdicts(self) -> dict[str, str]:
        return {r["name"]: r["status"] for r in self.report.get("results", [])}

    def result(self, name: str) -> dict[str, Any]:
        return next(r for r in self.report["results"] if r["name"] == name)


Toolproof = Callable[..., Outcome]


@pytest.fixture
def toolproof(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Toolproof:
    """`toolproof ARGS...` in-process; with `report=True`, `--json FILE` is added and read back."""

    def invoke(*args: str, report: bool = False) -> Outcome:
        path = tmp_path / "report.json"
        path.unlink(missing_ok=True)
        status = main([*args, *(["--json", str(path)] if report else [])])
        captured = capsys.readouterr()
        data = json.loads(path.read_text()) if report and path.exists() else {}
        return Outcome(status, captured.out, captured.err, data)

    return invoke


@pytest.fixture
def tiny_copy(tmp_path: Path) -> Path:
    """A copy of the tiny example server that a test may edit (to change an answer or a schema)."""
    copy = tmp_path / "server" / "tiny_server.py"
    copy.parent.mkdir()
    shutil.copy(TINY, copy)
    return copy


def write(directory: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return directory


def python_server(script: Path) -> str:
    return f"server: {{command: {sys.executable}, args: [{script}]}}\n"
