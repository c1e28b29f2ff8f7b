"""Run a loaded server suite: load errors become ERROR results, cases run concurrently, strays are reaped."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from toolproof.load.errors import LoadError
from toolproof.mcp.process import reap_strays
from toolproof.model.events import Sink
from toolproof.model.result import CaseResult, Failure, FailureKind, Status
from toolproof.model.suite import Case
from toolproof.run.scheduler import Slot, run_all
from toolproof.sources.options import ServerOptions
from toolproof.sources.server import execute_case

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


def by_document(items: Sequence[Case | LoadError]) -> list[Case | Broken]:
    """`items` with the load errors of each document gathered in one entry, where the first of them was."""
    gathered: dict[tuple[Path, int], list[LoadError]] = {}
    entries: list[Case | list[LoadError]] = []
    for item in items:
        if isinstance(item, Case):
            entries.append(item)
            continue
        key = (item.file, item.document)
        if key not in gathered:
            gathered[key] = []
            entries.append(gathered[key])
        gathered[key].append(item)
    return [entry if isinstance(entry, Case) else tuple(entry) for entry in entries]


async def run_server_suite(
    items: Sequence[Case | LoadError], options: ServerOptions, *, jobs: int, sink: Sink
) -> list[CaseResult]:
    """Every case's verdict (one ERROR result per document that did not load), in suite order; no server
    process outlives the call, even when it is cancelled."""

    async def execute(item: Case | Broken, slot: Slot) -> CaseResult:
        if isinstance(item, Case):
            return await execute_case(item, options, on_answered=slot.release)
        return load_error_result(*item)

    def name_of(item: Case | Broken) -> str:
        return item.name if isinstance(item, Case) else item[0].case_name

    try:
        return await run_all(by_document(items), execute, name_of, jobs=jobs, sink=sink)
    finally:
        reap_strays()
