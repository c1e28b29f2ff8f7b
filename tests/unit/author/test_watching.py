"""Which cases a change affects."""

from __future__ import annotations

from pathlib import Path

import pytest
from watchfiles import Change

from toolproof.author.watching import EditorFilter, Watched, affected


def test_changes_map_to_files_or_everything(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    (suite / "deep" / "fixtures").mkdir(parents=True)
    (suite / ".hidden").mkdir()
    for name in ("a.yaml", "deep/b.yml", "deep/fixtures/data.yaml", ".hidden/c.yaml", "notes.txt"):
        (suite / name).write_text("x")
    fixture, server = tmp_path / "fixture", tmp_path / "server.py"
    fixture.mkdir()
    server.write_text("")
    report = suite / "report.json"
    watched = Watched([suite], fixture, [server], frozenset({report.resolve()}))
    assert affected([suite / "a.yaml", suite / "deep" / "b.yml"], watched) == [
        (suite / "a.yaml").resolve(), (suite / "deep" / "b.yml").resolve()
    ]
    skipped = [suite / "deep" / "fixtures" / "data.yaml", suite / ".hidden" / "c.yaml", suite / "notes.txt"]
    assert affected([*skipped, report, suite / "gone.yaml"], watched) == []
    assert affected([suite / "a.yaml", fixture / "new.txt"], watched) is None
    assert affected([server], watched) is None
    assert watched.roots() == [suite.resolve(), fixture.resolve(), server.resolve()]


@pytest.mark.parametrize(
    "name",
    [".a.yaml.swp", ".a.yaml.swx", "a.yaml~", ".#a.yaml", "4913", "#a.yaml#", "a.kate-swp",
     ".goutputstream-AB12"],
)
def test_editor_temporary_files_are_no_change(tmp_path: Path, name: str) -> None:
    assert not EditorFilter()(Change.added, str(tmp_path / name))


def test_real_files_are_changes(tmp_path: Path) -> None:
    names = ("case.yaml", "4913.txt", "a#b")
    assert all(EditorFilter()(Change.modified, str(tmp_path / name)) for name in names)
