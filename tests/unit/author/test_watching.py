"""Which cases a change affects."""

from __future__ import annotations

from pathlib import Path

from toolproof.author.watching import Watched, affected


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
