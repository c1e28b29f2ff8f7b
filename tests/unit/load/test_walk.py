"""The one directory walker: order, skips, and links or special files that must not stop it."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from toolproof.load import SuiteNotFound, collect, load_suite, walk
from toolproof.load.dialects import suffixes


def discover(paths: list[Path]) -> list[Path]:
    return walk(paths, suffixes("server"))


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


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """A suite holding one good case beside links and special files named like cases."""
    root = tmp_path / "hostile"
    _tree(root, ["good.yaml"])
    (root / "self.yaml").symlink_to(root / "self.yaml")
    (root / "ping.yaml").symlink_to(root / "pong.yaml")
    (root / "pong.yaml").symlink_to(root / "ping.yaml")
    (root / "gone.yaml").symlink_to(root / "absent.yaml")
    (root / "loop").symlink_to(root, target_is_directory=True)
    os.mkfifo(root / "fifo.yaml")
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(root / "socket.yaml"))
    (root / "to-fifo.yaml").symlink_to(root / "fifo.yaml")
    return root


def test_links_and_special_files_never_stop_the_walk(hostile: Path) -> None:
    found = sorted(path.name for path in discover([hostile]))
    assert found == ["gone.yaml", "good.yaml", "ping.yaml", "pong.yaml", "self.yaml"]
    assert sorted(path.name for path in walk([hostile], frozenset({".yaml"}))) == found


def test_a_broken_link_is_a_load_error_naming_it_and_the_good_file_still_loads(hostile: Path) -> None:
    suite = load_suite([hostile])
    assert [case.source.file.name for case in suite.cases] == ["good.yaml"]
    broken = {error.file.name: error.message for error in suite.errors}
    assert sorted(broken) == ["gone.yaml", "ping.yaml", "pong.yaml", "self.yaml"]
    assert broken["gone.yaml"] == "cannot read file: No such file or directory"
    assert "symbolic links" in broken["self.yaml"]


def test_agent_cases_load_beside_broken_links(hostile: Path) -> None:
    case = "name: hello\nprompt: hi\nexpect: [{called: lookup}]\n"
    (hostile / "good.yaml").write_text(case, encoding="utf-8")
    collected = collect([hostile], kind="agent")
    assert [case.name for case in collected.cases] == ["hello"]
    broken = sorted(error.file.name for error in collected.errors)
    assert broken == ["gone.yaml", "ping.yaml", "pong.yaml", "self.yaml"]
