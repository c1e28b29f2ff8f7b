"""Which files a list of suite paths names.

A file is taken as given. A directory is walked recursively (mcp-assert reads only the top level and one level
of subdirectories) for the suffixes some dialect reads, in name order with each subdirectory's files at the
subdirectory's place, as mcp-assert's `os.ReadDir` walk orders them. While walking, hidden entries,
symlinked directories, `node_modules` and `fixtures` directories are skipped: they hold test data and
tooling, not tests.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from toolproof.load.dialects import suffixes

SKIPPED_DIRECTORIES = frozenset({"node_modules", "fixtures"})


class SuiteNotFound(Exception):
    """A suite path that does not exist: a usage error, not a load error."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"{path}: no such file or directory")
        self.path = path


def _walk(directory: Path, wanted: frozenset[str]) -> Iterator[Path]:
    for entry in sorted(directory.iterdir(), key=lambda entry: entry.name):
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            if not entry.is_symlink() and entry.name not in SKIPPED_DIRECTORIES:
                yield from _walk(entry, wanted)
        elif entry.suffix.lower() in wanted:
            yield entry


def discover(paths: Sequence[Path]) -> list[Path]:
    """The suite files named by `paths`, in order, each once; raises SuiteNotFound for a missing path."""
    wanted = suffixes()
    found: dict[Path, Path] = {}
    for path in paths:
        if not path.exists():
            raise SuiteNotFound(path)
        for file in _walk(path, wanted) if path.is_dir() else [path]:
            found.setdefault(file.resolve(), file)
    return list(found.values())
