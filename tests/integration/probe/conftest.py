"""Run a probe command in-process against a server and read its JSON report."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from toolproof.cli import main

ROOT = Path(__file__).resolve().parents[3]
TARGET = ROOT / "tests" / "servers" / "probe_target_server.py"


def target(*args: str) -> str:
    """The --server command line of the probe target server with `args`."""
    return shlex.join([sys.executable, str(TARGET), *args])


@dataclass
class Probed:
    status: int
    out: str
    err: str
    report: dict[str, Any]

    def verdicts(self) -> dict[str, str]:
        return {result["name"]: result["status"] for result in self.report.get("results", [])}

    def result(self, name: str) -> dict[str, Any]:
        return next(result for result in self.report["results"] if result["name"] == name)


@pytest.fixture
def probe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Callable[..., Probed]:
    def run(*argv: str) -> Probed:
        report = tmp_path / "report.json"
        report.unlink(missing_ok=True)
        status = main([*argv, "--json", str(report)])
        captured = capsys.readouterr()
        document = json.loads(report.read_text()) if report.exists() else {}
        return Probed(status, captured.out, captured.err, document)

    return run
