"""Loading test suites: discover files, read every YAML document, map each onto the model by its dialect.

A file or document that cannot be loaded yields LoadErrors (file, line, column, field); the rest still
load.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.load.dialects import load_document
from toolproof.load.errors import LoadError
from toolproof.load.selection import SelectionError, select
from toolproof.load.shards import Shard, Sharded, run_order, take_shard, unfinished
from toolproof.load.walk import SuiteNotFound, discover
from toolproof.load.yaml_source import read_yaml

if TYPE_CHECKING:  # an agent command loads the package, never a server case
    from toolproof.model.server_case import Case

__all__ = [
    "LoadError",
    "LoadedSuite",
    "SelectionError",
    "Shard",
    "Sharded",
    "SuiteNotFound",
    "discover",
    "load_file",
    "load_suite",
    "run_order",
    "select",
    "take_shard",
    "unfinished",
]


@dataclass
class LoadedSuite:
    """The cases that loaded and the errors of what did not, each in file order, then document order."""

    cases: list[Case] = field(default_factory=list)
    errors: list[LoadError] = field(default_factory=list)


def load_file(path: Path) -> list[Case | LoadError]:
    """Every case and load error of one file, in the order they are written."""
    source = read_yaml(path)
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


def load_suite(paths: Sequence[Path]) -> LoadedSuite:
    """Load every file `paths` names (see `discover`); raises SuiteNotFound for a missing path."""
    suite = LoadedSuite()
    for path in discover(paths):
        for item in load_file(path):
            if isinstance(item, LoadError):
                suite.errors.append(item)
            else:
                suite.cases.append(item)
    return suite
