"""`--help` and `--version` answer without importing the MCP SDK (or pydantic)."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import sys
from toolproof.cli import main
try:
    main({argv!r})
except SystemExit:
    pass
heavy = sorted(name for name in ("mcp", "mcp_types", "pydantic", "anyio") if name in sys.modules)
print("HEAVY:" + ",".join(heavy))
"""


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["run", "--help"]])
def test_light_commands_do_not_import_the_sdk(argv: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(argv=argv)], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip().splitlines()[-1] == "HEAVY:"


def test_python_dash_m_reports_the_version() -> None:
    done = subprocess.run([sys.executable, "-m", "toolproof", "--version"], capture_output=True, text=True)
    assert done.returncode == 0
    assert done.stdout.startswith("toolproof ")


def test_no_command_is_a_usage_error() -> None:
    done = subprocess.run([sys.executable, "-m", "toolproof"], capture_output=True, text=True)
    assert done.returncode == 2
    assert "run" in done.stderr
