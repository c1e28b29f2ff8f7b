"""Run a loaded server suite: load errors become ERROR results, cases run concurrently, strays are reaped."""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from contextlib import nullcontext
from typing import TYPE_CHECKING

import anyio

from toolproof.check.trials import combine
from toolproof.load.errors import LoadError
from toolproof.model.events import Sink, TrialFinished
from toolproof.model.result import CaseResult
from toolproof.model.server_case import Case
from toolproof.run.fixture import isolated_fixture
from toolproof.run.load_errors import Broken, by_document, met_load_error
from toolproof.run.scheduler import Slot, run_all
from toolproof.run.server_case import execute_case
from toolproof.run.serverless_suite import starts_server
from toolproof.sources.options import ServerOptions
from toolproof.sources.waits import longest_wait_s

if TYPE_CHECKING:
    from toolproof.run.server_reuse import Reuse
    from toolproof.run.side_by_side import SideBySide


async def run_server_suite(
    items: Sequence[Case | LoadError],
    options: ServerOptions,
    *,
    jobs: int,
    sink: Sink,
    trials: int = 1,
    maxfail: int = 0,
    expected_s: Mapping[str, float] | None = None,
) -> list[CaseResult]:
    """Every case's verdict (one ERROR result per document that did not load), in suite order; no server
    process outlives the call, even when it is cancelled. With `trials` > 1 each case runs that many times
    (its trials at once, at most `jobs` trials of all cases running) and its one result carries the trial
    statistics; with `maxfail` the run stops after that many failed cases. `expected_s` (seconds per node id,
    `file::name`, from an earlier run) starts the slowest cases first. Cases that could change what another
    case of their server sees run alone (`run/side_by_side.py`)."""
    trial_slots = anyio.CapacityLimiter(max(1, jobs))
    cases = [item for item in items if isinstance(item, Case)]
    reuse: Reuse | None = None
    side_by_side: SideBySide | None = None
    if any(starts_server(case) for case in cases):
        from toolproof.run.side_by_side import SideBySide  # the MCP SDK: only for cases that start a server

        side_by_side = SideBySide(cases, options, runs=trials)

    async def execute(item: Case | Broken, slot: Slot) -> CaseResult:
        if not isinstance(item, Case):
            return met_load_error(sink, item)
        if trials == 1:
            return await execute_case(item, options, on_waiting=slot.release, reuse=reuse)
        done: list[CaseResult | None] = [None] * trials
        one_by_one = anyio.CapacityLimiter(1) if side_by_side and side_by_side.alone(item) else None

        async def one(number: int) -> None:
            async with one_by_one or nullcontext(), trial_slots:
                done[number - 1] = result = await execute_case(item, options, trial=number, reuse=reuse)
            sink.handle(TrialFinished(result, number, trials))

        async with anyio.create_task_group() as group:
            for number in range(1, trials + 1):
                group.start_soon(one, number)
        return combine([result for result in done if result is not None])

    def name_of(item: Case | Broken) -> str:
        return item.name if isinstance(item, Case) else item[0].case_name

    def own_expected(item: Case) -> float:
        """Seconds the case took last time, else the longest its block may wait after the answer."""
        last = (expected_s or {}).get(f"{item.source.file}::{item.name}")
        return longest_wait_s(item.block, options) if last is None else last

    group_expected: dict[int, float] = {}

    def expected(item: Case | Broken) -> float:
        """The case's own expected seconds; for cases that share a state, the least time they take together
        (`SideBySide.critical_path`), the same for each, so that they start in suite order
        (`run/side_by_side.py`) and the longest group first."""
        if not isinstance(item, Case):
            return 0.0
        fellows = side_by_side.fellows(item) if side_by_side else []
        if not fellows:
            return own_expected(item)
        if id(fellows) not in group_expected:
            assert side_by_side is not None
            group_expected[id(fellows)] = side_by_side.critical_path(fellows, own_expected)
        return group_expected[id(fellows)]

    def run(entries: list[Case | Broken]) -> Awaitable[list[CaseResult]]:
        ordered = side_by_side is not None and jobs > 1 and side_by_side.identities() > 1
        return run_all(
            entries,
            execute,
            name_of,
            jobs=jobs,
            sink=sink,
            maxfail=maxfail,
            expected_s=expected,
            turn=side_by_side.turn if side_by_side else None,
            prepare=side_by_side.declare_all if side_by_side and ordered else None,  # critical paths first
        )

    try:
        async with side_by_side.running() if side_by_side else nullcontext():
            if not options.reuse_server:
                return await run(by_document(items))
            from toolproof.run.server_reuse import Reuse  # the MCP SDK: only when servers are shared
            from toolproof.sources.shared_servers import SharedServers

            with isolated_fixture(options.fixture) as fixture:
                async with anyio.create_task_group() as group:
                    servers = SharedServers(group)
                    reuse = Reuse(servers, str(fixture) if fixture else None, cases, options, runs=trials)
                    if side_by_side:
                        side_by_side.lister = reuse.listing  # its listing server is the first shared one
                    try:
                        results = await run(by_document(items))
                    finally:
                        servers.close_all()
            return results
    finally:
        if any(isinstance(item, Case) and starts_server(item) for item in items):
            from toolproof.mcp.process import reap_strays  # not for trajectory or skipped cases: no server

            reap_strays()
