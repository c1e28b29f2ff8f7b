"""The one directory walker: which files a list of suite paths names.

A path given by name is taken as it is. A directory is walked recursively for the suffixes asked for, in
name order with each subdirectory's files at the subdirectory's place (as mcp-assert's `os.ReadDir` walk
orders them). While walking, hidden entries, symlinked directories (no loops), `node_modules` and `fixtures`
directories are skipped: they hold tooling and test data, not tests. So are entries that are not regular
files (FIFOs, sockets, devices), which a reader would block on; a broken or looping link with a wanted suffix
is kept, so that reading it reports a load error naming it, while every other file still loads.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

SKIPPED_DIRECTORIES = frozenset({"node_modules", "fixtures"})


class SuiteNotFound(FileNotFoundError):
    """A suite path that does not exist: a usage error, not a load error. `args[0]` is the path."""

    def __init__(self, path: Path) -> None:
        super().__init__(str(path))
        self.path = path

    def __str__(self) -> str:
        return f"{self.path}: no such file or directory"


def _walk(directory: Path, wanted: frozenset[str]) -> Iterator[Path]:
    try:
        entries = sorted(directory.iterdir(), key=lambda entry: entry.name)
    except OSError:  # unreadable, or gone while walking: nothing in it to load
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        try:
            mode = entry.stat().st_mode
        except OSError:  # a broken or looping link: kept, for its reader to report
            if entry.suffix.lower() in wanted:
                yield entry
            continue
        if stat.S_ISDIR(mode):
            if not entry.is_symlink() and entry.name not in SKIPPED_DIRECTORIES:
                yield from _walk(entry, wanted)
        elif stat.S_ISREG(mode) and entry.suffix.lower() in wanted:
            yield entry


def walk(paths: Sequence[Path], wanted: frozenset[str]) -> list[Path]:
    """The files `paths` name: a path given by name as it is, a directory's files with the `wanted` suffixes
    below it; in order, each once; raises SuiteNotFound for a missing path."""
    found: dict[Path, Path] = {}
    for path in paths:
        if not path.exists() and not path.is_symlink():
            raise SuiteNotFound(path)
        for file in _walk(path, wanted) if path.is_dir() else [path]:
            found.setdefault(Path(os.path.realpath(file)), file)  # a looping link has no resolve()
    return list(found.values())
