"""Files and documents that could not be loaded, as results in their place: one ERROR result per document,
listing every problem found in it, named after the case it stands for. Imports nothing of the MCP SDK."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

from toolproof.load.errors import LoadError
from toolproof.model.events import LoadFailed, Sink
from toolproof.model.result import CaseResult, Failure, FailureKind, Status

T = TypeVar("T")
Broken = tuple[LoadError, ...]
"""Every load error of one document (or of a file no document of which could be read)."""


def load_error_result(error: LoadError, *more: LoadError) -> CaseResult:
    """A document that could not be loaded, as one result in its place, named after the case it stands for;
    `more` are further problems found in the same document."""
    problems = (error, *more)
    message = str(error)
    if more:
        message = "\n".join([f"{len(problems)} problems:", *(f"- {problem}" for problem in problems)])
    return CaseResult(
        name=f"{error.case_name} (load error)",
        file=error.file,
        line=error.line,
        status=Status.ERROR,
        failure=Failure(
            kind=FailureKind.CONFIG,
            message=message,
            details={"field": error.field, "fields": [problem.field for problem in problems]},
        ),
    )


def met_load_error(sink: Sink, broken: Broken) -> CaseResult:
    """A document that did not load, met by the run: told to `sink` as a `LoadFailed` at once, then
    its result in its place."""
    first = broken[0]
    sink.handle(LoadFailed(first.file, first.line, tuple(str(error) for error in broken)))
    return load_error_result(*broken)


def by_document(items: Sequence[T | LoadError]) -> list[T | Broken]:
    """`items` with the load errors of each document gathered in one entry, where the first of them was."""
    gathered: dict[tuple[Path, int], list[LoadError]] = {}
    entries: list[T | list[LoadError]] = []
    for item in items:
        if not isinstance(item, LoadError):
            entries.append(item)
            continue
        key = (item.file, item.document)
        if key not in gathered:
            gathered[key] = []
            entries.append(gathered[key])
        gathered[key].append(item)
    return [tuple(entry) if isinstance(entry, list) else entry for entry in entries]


def load_error_results(errors: Sequence[LoadError]) -> list[CaseResult]:
    """One result per document the errors were found in, in the order of their first error."""
    return [load_error_result(*entry) for entry in by_document(errors) if isinstance(entry, tuple)]
