"""Run one server case to a verdict: skip, isolate the fixture, observe the server, check the observation."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from toolproof.check.blocks import check_block
from toolproof.core.template import fill
from toolproof.model.observation import Observation
from toolproof.model.result import CaseResult, Failure, Status, Step
from toolproof.model.server_case import AssertBlock, Block, Case, Expect, TrajectoryBlock
from toolproof.run.fixture import isolated_fixture
from toolproof.run.skip import skip_reason
from toolproof.sources.options import ServerOptions

if TYPE_CHECKING:
    from toolproof.run.server_reuse import Reuse
    from toolproof.sources.server import ServerExchange


class ResultMaker(Protocol):
    def __call__(
        self,
        status: Status,
        failure: Failure | None = None,
        *,
        reason: str | None = None,
        stderr: str = "",
        phases: dict[str, float] | None = None,
        steps: tuple[Step, ...] = (),
        protocol: str | None = None,
        warnings: tuple[str, ...] = (),
    ) -> CaseResult: ...


async def execute_case(
    case: Case,
    options: ServerOptions,
    *,
    trial: int = 1,
    on_waiting: Callable[[], None] = lambda: None,
    on_observed: Callable[[Observation], None] = lambda observation: None,
    reuse: Reuse | None = None,
) -> CaseResult:
    """Run one case to a verdict: every failure of the server becomes a classified result, not a raise.

    `on_waiting` is called as soon as the case only waits (its server idle during a request, late
    notifications, the server's shutdown: see `observe_case`); `on_observed` with what came back, before it
    is checked. With `reuse`, a case that may share runs on a
    shared server (`run/server_reuse.py`).
    """
    started = time.perf_counter()

    def verdict(
        status: Status,
        failure: Failure | None = None,
        *,
        reason: str | None = None,
        stderr: str = "",
        phases: dict[str, float] | None = None,
        steps: tuple[Step, ...] = (),
        protocol: str | None = None,
        warnings: tuple[str, ...] = (),
    ) -> CaseResult:
        return CaseResult(
            name=case.name,
            file=case.source.file,
            line=case.source.expect_lines.get((failure.check or "").split(".")[0], case.source.line)  # task.*
            if failure
            else case.source.line,
            status=status,
            failure=failure,
            reason=reason,
            duration_s=time.perf_counter() - started,
            trial=trial,
            stderr=stderr,
            phases=phases or {},
            steps=steps,
            protocol=protocol,
            warnings=warnings,
        )

    reason = skip_reason(case, options.environ)
    if reason:
        return verdict(Status.SKIP, reason=reason)
    if isinstance(case.block, TrajectoryBlock):
        from toolproof.run.trajectory import run_trajectory  # reads audit logs: only for trajectory cases

        failure = run_trajectory(case.block, case.source.file.parent, options.fixture)
        return verdict(Status.FAIL if failure else Status.PASS, failure)

    from toolproof.sources.server import observe_case  # the MCP SDK loads for the first case with a server

    if reuse is not None:
        shared = await reuse.observe(
            case, options, lambda variables: _resolved_expect(case.block, variables), on_waiting
        )
        if shared is not None:
            expect = _resolved_expect(case.block, reuse.variables)
            result = _judged(verdict, case.block, expect, shared.exchange, on_observed)
            return result.model_copy(update={"shared_server": shared.server})
    with isolated_fixture(options.fixture) as fixture:
        variables = {"fixture": str(fixture)} if fixture else {}
        expect = _resolved_expect(case.block, variables)
        exchange = await observe_case(case, options, variables, expect, on_waiting=on_waiting)
        return _judged(verdict, case.block, expect, exchange, on_observed)


def _judged(
    verdict: ResultMaker,
    block: Block,
    expect: Expect,
    exchange: ServerExchange,
    on_observed: Callable[[Observation], None],
) -> CaseResult:
    """The verdict on what the server did: its classified failure, or the checks on its observation."""
    failure, stderr = exchange.failure, exchange.stderr
    status = Status.FAIL
    if exchange.observation is not None:
        on_observed(exchange.observation)
        failure = check_block(block, expect, exchange.observation)
        status, stderr = (Status.FAIL, stderr) if failure else (Status.PASS, "")
    return verdict(
        status,
        failure,
        stderr=stderr,
        phases=exchange.phases,
        steps=tuple(exchange.steps),
        protocol=exchange.protocol,
        warnings=tuple(exchange.warnings),
    )


def _resolved_expect(block: Block, variables: Mapping[str, str]) -> Expect:
    """The block's expectations as they are checked: `{{fixture}}` filled in file paths (mcp-assert misses
    file_unchanged), min_progress dropped unless progress is captured."""
    expect: Expect | None = getattr(block, "expect", None)
    if not isinstance(expect, Expect):
        return Expect()
    update: dict[str, Any] = {}
    if expect.min_progress is not None and not (isinstance(block, AssertBlock) and block.capture_progress):
        update["min_progress"] = None  # mcp-assert checks progress only when it was asked to capture it
    for name in ("file_contains", "file_not_contains"):
        mapping = getattr(expect, name)
        if mapping:
            update[name] = {fill(path, variables): text for path, text in mapping.items()}
    for name in ("file_not_exists", "file_unchanged"):
        paths = getattr(expect, name)
        if paths:
            update[name] = [fill(path, variables) for path in paths]
    return expect.model_copy(update=update) if update else expect
