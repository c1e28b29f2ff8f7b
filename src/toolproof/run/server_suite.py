"""Run a loaded server suite: load errors become ERROR results, cases run concurrently, strays are reaped."""

from __future__ import annotations

from collections.abc import Sequence

from toolproof.load.errors import LoadError
from toolproof.mcp.process import reap_strays
from toolproof.model.events import Sink
from toolproof.model.result import CaseResult, Failure, FailureKind, Status
from toolproof.model.suite import Case
from toolproof.run.scheduler import Slot, run_all
from toolproof.sources.options import ServerOptions
from toolproof.sources.server import execute_case


def load_error_result(error: LoadError) -> CaseResult:
    """A file or document that could not be loaded, as a result in its place."""
    return CaseResult(
        name=f"{error.file.name} (load error)",
        file=error.file,
        line=error.line,
        status=Status.ERROR,
        failure=Failure(kind=FailureKind.CONFIG, message=str(error), details={"field": error.field}),
    )


async def run_server_suite(
    items: Sequence[Case | LoadError], options: ServerOptions, *, jobs: int, sink: Sink
) -> list[CaseResult]:
    """Every case's verdict, in suite order; no server process outlives the call."""

    async def execute(item: Case | LoadError, slot: Slot) -> CaseResult:
        if isinstance(item, LoadError):
            return load_error_result(item)
        return await execute_case(item, options, on_answered=slot.release)

    def name_of(item: Case | LoadError) -> str:
        return item.name if isinstance(item, Case) else str(item.file)

    try:
        return await run_all(items, execute, name_of, jobs=jobs, sink=sink)
    finally:
        reap_strays()
