"""The file formats toolproof reads, tried in order on each document; the first that recognises it loads it.

To add a format, write a loader module and append a `Dialect` to `DIALECTS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from toolproof.load import mcp_assert
from toolproof.load.errors import LoadError
from toolproof.load.yaml_source import Document
from toolproof.model.suite import Case


@dataclass(frozen=True)
class Dialect:
    """A test-file format: the file suffixes it owns, how to recognise a document, how to load one."""

    name: str
    recognised_by: str
    suffixes: frozenset[str]
    detect: Callable[[dict[str, Any]], bool]
    load: Callable[[Document], list[Case | LoadError]]


DIALECTS: list[Dialect] = [
    Dialect(
        "mcp-assert",
        "a key assert, assert_*, trajectory, server or setup",
        frozenset({".yaml", ".yml"}),
        mcp_assert.detect,
        mcp_assert.load,
    ),
]


def suffixes() -> frozenset[str]:
    """Every suffix some dialect reads: what directory discovery collects."""
    return frozenset().union(*(dialect.suffixes for dialect in DIALECTS))


def load_document(document: Document) -> list[Case | LoadError]:
    """The cases of `document` by the first dialect that recognises it, or an error naming the known ones."""
    for dialect in DIALECTS:
        if dialect.detect(document.data):
            return dialect.load(document)
    known = "; ".join(f"{dialect.name}, recognised by {dialect.recognised_by}" for dialect in DIALECTS)
    return [document.error((), "not a test format toolproof knows", f"known formats: {known}")]
