from __future__ import annotations

from pathlib import Path

import pytest

from toolproof.load import SuiteNotFound, discover


def _tree(root: Path, files: list[str]) -> None:
    for name in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("assert: {tool: t}\n", encoding="utf-8")


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    root = tmp_path / "suite"
    _tree(root, [
        "b.yaml", "a.yaml", "a/inner.yaml", "a/deeper/deep.yml", "B.yaml", "UP.YAML",
        ".hidden.yaml", ".git/x.yaml", "node_modules/pkg/x.yaml", "fixtures/data.yaml", "notes.txt", "c.json",
    ])
    (root / "link").symlink_to(root / "a", target_is_directory=True)
    return root


def test_directory_order_and_skips(suite: Path) -> None:
    found = [path.relative_to(suite).as_posix() for path in discover([suite])]
    assert found == ["B.yaml", "UP.YAML", "a/deeper/deep.yml", "a/inner.yaml", "a.yaml", "b.yaml"]


def test_paths_keep_their_given_spelling(suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(suite.parent)
    assert discover([Path("suite/a")]) == [Path("suite/a/deeper/deep.yml"), Path("suite/a/inner.yaml")]


def test_explicit_paths_keep_their_order_and_each_file_comes_once(suite: Path) -> None:
    found = discover([suite / "b.yaml", suite / "a", suite, suite / "a" / ".." / "b.yaml"])
    assert [path.relative_to(suite).as_posix() for path in found] == [
        "b.yaml", "a/deeper/deep.yml", "a/inner.yaml", "B.yaml", "UP.YAML", "a.yaml",
    ]


def test_explicit_files_and_directories_are_taken_whatever_their_name(suite: Path) -> None:
    assert discover([suite / "notes.txt"]) == [suite / "notes.txt"]
    assert discover([suite / "fixtures"]) == [suite / "fixtures" / "data.yaml"]
    assert discover([suite / ".git"]) == [suite / ".git" / "x.yaml"]


def test_empty_directory_has_no_files(tmp_path: Path) -> None:
    assert discover([tmp_path]) == []


def test_missing_path_is_a_usage_error(suite: Path) -> None:
    missing = suite / "nope"
    with pytest.raises(SuiteNotFound) as raised:
        discover([suite, missing])
    assert raised.value.path == missing
    assert str(raised.value) == f"{missing}: no such file or directory"
