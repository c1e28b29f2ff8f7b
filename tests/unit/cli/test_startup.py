"""`--help` and `--version` answer without importing the MCP SDK (or pydantic)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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


@pytest.mark.parametrize(
    "argv", [["--version"], ["--help"], ["run", "--help"], ["check", "--help"], ["lint", "--help"]]
)
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


def test_the_console_entry_returns_the_commands_status_and_freezes_what_is_left(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import gc

    from toolproof.cli import console

    (tmp_path / "case.yaml").write_text("name: no block\n")
    monkeypatch.setattr(sys, "argv", ["toolproof", "schema", "mcp-assert", str(tmp_path / "case.yaml")])
    try:
        assert console() == 1  # the file breaks the schema, as `main` would say
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
