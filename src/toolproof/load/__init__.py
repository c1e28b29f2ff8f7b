"""Loading test suites: find files, read every YAML document, map each onto the model by its dialect.
`collect` (`load/collect.py`) is the one way in for the commands that run cases and the pytest plugin.

A file or document that cannot be loaded yields LoadErrors (file, line, column, field); the rest still
load. A YAML file found by walking a directory that holds no test (`dialects.holds_tests`) is skipped with a
note; a file named by its path is always loaded.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.core.writing import warn
from toolproof.load.collect import Collected, Selection, collect
from toolproof.load.dialects import holds_tests, load_document, suffixes
from toolproof.load.errors import LoadError
from toolproof.load.selection import SelectionError, select
from toolproof.load.shapes import settings_file
from toolproof.load.shards import Shard, Sharded, run_order, take_shard, unfinished
from toolproof.load.walk import SuiteNotFound, walk
from toolproof.load.yaml_source import YamlFile, read_yaml

if TYPE_CHECKING:  # an agent command loads the package, never a server case
    from toolproof.model.server_case import Case

__all__ = [
    "Collected",
    "LoadError",
    "LoadedSuite",
    "Selection",
    "SelectionError",
    "Shard",
    "Sharded",
    "SuiteNotFound",
    "collect",
    "load_file",
    "load_paths",
    "load_suite",
    "run_order",
    "select",
    "skip_note",
    "take_shard",
    "unfinished",
    "walk",
]


@dataclass
class LoadedSuite:
    """The cases that loaded and the errors of what did not, each in file order, then document order."""

    cases: list[Case] = field(default_factory=list)
    errors: list[LoadError] = field(default_factory=list)


def load_file(path: Path) -> list[Case | LoadError]:
    """Every case and load error of one file, in the order they are written."""
    return load_source(read_yaml(path))


def load_source(source: YamlFile) -> list[Case | LoadError]:
    """Every case and load error of a file that was read, in the order they are written."""
    items: list[Case | LoadError] = list(source.errors)
    for document in source.documents:
        try:
            items.extend(load_document(document))
        except Exception as error:  # a loader's own bug costs one document, never the run
            items.append(document.error((), f"cannot load this document ({type(error).__name__}: {error})"))
    return sorted(items, key=_position)


def _position(item: Case | LoadError) -> tuple[int, int]:
    if isinstance(item, LoadError):
        return item.line, item.column
    return item.source.line, item.source.column


SKIPPED_NOTE = "skipped: no document in it is a test of a format toolproof knows (name the file to load it)"
"""The note of a YAML file a directory walk found that holds no test."""


def skip_note(path: Path, source: YamlFile) -> str | None:
    """The note for a file a directory walk found that holds no test (`holds_tests`), or None for one of
    toolproof's own settings files, skipped without a word."""
    if any(settings_file(path, document.data) for document in source.documents):
        return None
    return f"{path}: {SKIPPED_NOTE}"


def load_paths(paths: Sequence[Path], note: Callable[[str], None] = warn) -> list[Case | LoadError]:
    """Every case and load error of the suite files `paths` name (see `walk`), file by file. A file found by
    walking a directory that holds no test is skipped, told to `note`; raises SuiteNotFound for a missing
    path."""
    named = {os.path.realpath(path) for path in paths if not path.is_dir()}
    items: list[Case | LoadError] = []
    for path in walk(paths, suffixes("server")):
        source = read_yaml(path)
        if os.path.realpath(path) not in named and not holds_tests(source):
            if (text := skip_note(path, source)) is not None:
                note(text)
            continue
        items.extend(load_source(source))
    return items


def load_suite(paths: Sequence[Path], note: Callable[[str], None] = warn) -> LoadedSuite:
    """Load every file `paths` names (see `load_paths`); raises SuiteNotFound for a missing path."""
    suite = LoadedSuite()
    for item in load_paths(paths, note):
        if isinstance(item, LoadError):
            suite.errors.append(item)
        else:
            suite.cases.append(item)
    return suite
