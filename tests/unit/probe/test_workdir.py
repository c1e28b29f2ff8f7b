"""Which arguments of a probed server's command line are made absolute when it runs in a scratch directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolproof.probe.workdir import anchored


@pytest.mark.parametrize(
    ("argument", "anchored_to_base"),
    [
        ("dist/index.js", True),
        ("server.py", True),
        ("./server.py", True),
        ("dist", False),  # no slash, no suffix: a subcommand as much as a directory
        ("missing.py", False),
        ("--root", False),
        ("-m", False),
        ("@modelcontextprotocol/server-memory", False),
    ],
)
def test_existing_relative_paths_are_made_absolute(
    tmp_path: Path, argument: str, anchored_to_base: bool
) -> None:
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "index.js").write_text("")
    (tmp_path / "server.py").write_text("")
    expected = str(tmp_path / argument) if anchored_to_base else argument
    assert anchored(argument, tmp_path) == expected


def test_an_absolute_path_stays_as_it_is(tmp_path: Path) -> None:
    assert anchored(str(tmp_path), Path("/")) == str(tmp_path)
