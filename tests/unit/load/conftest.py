"""Helpers for loader tests: write a YAML text to a temporary file."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"

Write = Callable[..., Path]


@pytest.fixture
def write(tmp_path: Path) -> Write:
    """`write(text, name="case.yaml")`: the dedented text in a file under tmp_path."""

    def _write(text: str, name: str = "case.yaml") -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    return _write
