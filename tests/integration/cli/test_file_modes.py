"""Every file toolproof writes gets the mode a new file gets under the umask (reports written in a container
stay readable on the host); only the OAuth token cache is private (tests/integration/auth)."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolproof.cli import main
from toolproof.core.writing import umask, write_atomic

TINY = Path(__file__).resolve().parents[3] / "examples" / "servers" / "tiny_server.py"
SUITE = f"""\
name: echo
server: {{command: {sys.executable}, args: [{TINY}]}}
assert: {{tool: echo, args: {{text: hi}}, expect: {{equals: hi}}}}
"""


@pytest.fixture
def umask_027() -> Iterator[None]:
    previous = os.umask(0o027)
    try:
        yield
    finally:
        os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("mask", [0o022, 0o027, 0o077], ids=["022", "027", "077"])
def test_an_atomic_write_follows_the_umask(tmp_path: Path, mask: int) -> None:
    previous = os.umask(mask)
    try:
        assert umask() == mask
        write_atomic(tmp_path / "a" / "report.html", "x")
    finally:
        os.umask(previous)
    assert mode(tmp_path / "a" / "report.html") == 0o666 & ~mask


@pytest.mark.usefixtures("umask_027")
def test_every_report_and_state_file_follows_the_umask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "echo.yaml").write_text(SUITE)
    reports = ["--json", "r.json", "--junit", "j.xml", "--html", "r.html", "--markdown", "s.md",
               "--badge", "badge.json", "--save-baseline", "base.json"]
    assert main(["run", "suite", "-j", "2", *reports]) == 0
    assert main(["matrix", "suite", "--server", f"tiny={sys.executable} {TINY}", "--output", "m.md"]) == 0
    assert main(["snapshot", "suite", "--update"]) == 0
    capsys.readouterr()
    names = ("r.json", "j.xml", "r.html", "s.md", "badge.json", "base.json", "m.md")
    written = [tmp_path / name for name in names]
    written += [suite / ".snapshots.json", *(tmp_path / ".toolproof").glob("*.json")]
    assert len(written) > 9, written  # the state directory holds the last run's failures and durations
    assert {path.name: oct(mode(path)) for path in written} == {path.name: oct(0o640) for path in written}
