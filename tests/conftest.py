"""Test-wide setup: real MCP servers are found on PATH (the project's venv and node_modules)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_BINS = [str(Path(sys.executable).parent), str(ROOT / "node_modules" / ".bin")]
os.environ["PATH"] = os.pathsep.join([*_BINS, os.environ.get("PATH", "")])
os.environ.pop("GITHUB_STEP_SUMMARY", None)  # the runs under test must not write to a real job's summary
