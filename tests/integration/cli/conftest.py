"""Helpers for running the `toolproof` command in-process on suites written into a temporary directory."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from toolproof.cli import main


@dataclass
class Outcome:
    status: int
    out: str
    err: str
    report: dict[str, Any]

    def verdicts(self) -> dict[str, str]:
        return {r["name"]: r["status"] for r in self.report["results"]}

    def result(self, name: str) -> dict[str, Any]:
        return next(r for r in self.report["results"] if r["name"] == name)


@pytest.fixture
def write_suite(tmp_path: Path) -> Callable[[dict[str, str]], Path]:
    """Write {relative file name: YAML text} under tmp_path/suite and return the suite directory."""

    def write(files: dict[str, str]) -> Path:
        suite = tmp_path / "suite"
        for name, text in files.items():
            path = suite / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text))
        return suite

    return write


@pytest.fixture
def toolproof(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Callable[..., Outcome]:
    """Run `toolproof run ARGS... --json FILE` in-process and return status, output and the JSON report."""

    def invoke(*args: str) -> Outcome:
        report = tmp_path / "report.json"
        status = main(["run", *args, "--json", str(report)])
        captured = capsys.readouterr()
        data = json.loads(report.read_text()) if report.exists() else {"results": []}
        return Outcome(status, captured.out, captured.err, data)

    return invoke
