"""Execute one server case: isolate, connect, initialize, set up, request, observe, check, close."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import anyio

from toolproof.check.blocks import check_block
from toolproof.check.dotpath import PathError, capture_value
from toolproof.mcp.errors import RequestFailed
from toolproof.mcp.session import Session, open_session
from toolproof.model.observation import Observation
from toolproof.model.result import CaseResult, Failure, FailureKind, Status, Step
from toolproof.model.suite import (
    AssertBlock,
    Block,
    Case,
    Expect,
    SamplingBlock,
    SamplingMock,
    TrajectoryBlock,
)
from toolproof.run.fixture import isolated_fixture
from toolproof.run.template import fill
from toolproof.sources.connect import connect_spec
from toolproof.sources.options import ServerOptions
from toolproof.sources.requests import OBSERVERS, content_text
from toolproof.sources.trajectory import run_trajectory

_PHASE_WORDS = {
    "start": "server start and initialize",
    "setup": "setup",
    "call": "the request",
    "stop": "shutdown",
}


class _Phases:
    """Wall-clock seconds spent in each phase of a case, and the phase in progress."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.current = "start"
        self._at = time.perf_counter()

    def lap(self, finished: str, following: str) -> None:
        now = time.perf_counter()
        self.seconds[finished] = now - self._at
        self.current, self._at = following, now


def skip_reason(case: Case, environ: Mapping[str, str]) -> str | None:
    """Why the case does not run, if it does not."""
    if case.skip:
        return "skip: true"
    if case.skip_unless_env and not environ.get(case.skip_unless_env):
        return f"skipped: env var {case.skip_unless_env} not set"
    return None


async def execute_case(
    case: Case, options: ServerOptions, *, trial: int = 1, on_answered: Callable[[], None] = lambda: None
) -> CaseResult:
    """Run one case to a verdict: every failure of the server becomes a classified result, not a raise.

    `on_answered` is called once the request has been answered, before the server is shut down.
    """
    started = time.perf_counter()
    steps: list[Step] = []  # filled in as the case talks to its server

    def verdict(
        status: Status,
        failure: Failure | None = None,
        *,
        reason: str | None = None,
        stderr: str = "",
        phases: dict[str, float] | None = None,
    ) -> CaseResult:
        return CaseResult(
            name=case.name,
            file=case.source.file,
            line=case.source.line,
            status=status,
            failure=failure,
            reason=reason,
            duration_s=time.perf_counter() - started,
            trial=trial,
            stderr=stderr,
            phases=phases or {},
            steps=tuple(steps),
        )

    reason = skip_reason(case, options.environ)
    if reason:
        return verdict(Status.SKIP, reason=reason)
    if isinstance(case.block, TrajectoryBlock):
        failure = run_trajectory(case.block, case.source.file.parent, options.fixture)
        return verdict(Status.FAIL if failure else Status.PASS, failure)

    run = _CaseRun(case, options, on_answered, steps)
    with isolated_fixture(options.fixture) as fixture:
        run.variables = {"fixture": str(fixture)} if fixture else {}
        run.expect = _resolved_expect(case.block, run.variables)
        try:
            with anyio.fail_after(run.timeout):
                observation = await run.converse()
        except TimeoutError:
            message = f"timed out after {run.timeout:g}s during {_PHASE_WORDS[run.phases.current]}"
            failure = Failure(kind=FailureKind.TIMEOUT, message=message)
            return verdict(Status.FAIL, failure, stderr=run.stderr(), phases=run.phases.seconds)
        except RequestFailed as error:
            stderr = error.stderr or run.stderr()
            return verdict(Status.FAIL, error.failure, stderr=stderr, phases=run.phases.seconds)
        except _SetupFailed as error:
            return verdict(Status.FAIL, error.failure, stderr=run.stderr(), phases=run.phases.seconds)
        run.phases.lap("stop", "done")
        failure = check_block(case.block, run.expect, observation)
    return verdict(
        Status.FAIL if failure else Status.PASS,
        failure,
        stderr=run.stderr() if failure else "",
        phases=run.phases.seconds,
    )


class _SetupFailed(Exception):
    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.message)
        self.failure = failure


class _CaseRun:
    """The state of one case while it talks to its server."""

    def __init__(
        self, case: Case, options: ServerOptions, on_answered: Callable[[], None], steps: list[Step]
    ) -> None:
        self.case, self.options, self.on_answered = case, options, on_answered
        self.timeout = case.timeout or options.timeout_s
        self.phases = _Phases()
        self.variables: dict[str, str] = {}
        self.expect = Expect()
        self.session: Session | None = None
        self.steps = steps  # setup calls and the request, with what came back

    def stderr(self) -> str:
        return self.session.stderr if self.session else ""

    async def converse(self) -> Observation:
        """Connect, set up, make the block's request and read the files the expectations name."""
        block = self.case.block
        sampling = (
            SamplingMock(text=block.mock_text, model=block.mock_model, stop_reason=block.stop_reason)
            if isinstance(block, SamplingBlock)
            else None
        )
        spec = connect_spec(
            self.case.server, self.variables, self.options, sampling=sampling, request_timeout=self.timeout
        )
        async with open_session(spec) as session:
            self.session = session
            try:
                self.phases.lap("start", "setup")
                await _run_setup(self.case, session, self.variables, self.steps)
                self.phases.lap("setup", "call")
                before = _read_files(self.expect.file_unchanged or [])
                observe = OBSERVERS[type(block)]
                self.steps.append(_request_step(block, self.variables))
                observation = await observe(block, session, self.variables, self.options.notification_grace_s)
                self.steps[-1] = self.steps[-1].model_copy(
                    update={
                        "response": observation.result or observation.text,
                        "is_error": observation.is_error,
                        "duration_ms": observation.duration_s * 1000,
                    }
                )
                after = _read_files(self.expect.file_paths_after())
                self.phases.lap("call", "stop")
            finally:
                self.on_answered()
        return observation.model_copy(update={"files_before": before, "files_after": after})


async def _run_setup(case: Case, session: Session, variables: dict[str, str], steps: list[Step]) -> None:
    """Setup calls in order, each added to `steps`; an isError result does not stop the case, a failed
    request does."""
    for number, step in enumerate(case.setup, start=1):
        arguments = fill(step.args, variables)
        steps.append(Step(kind="setup", name=step.tool, request={"tool": step.tool, "arguments": arguments}))
        try:
            result = await session.call_tool(step.tool, arguments)
        except RequestFailed as error:
            failure = error.failure
            raise _SetupFailed(
                failure.model_copy(
                    update={"message": f"setup step {number} ({step.tool}): {failure.message}"}
                )
            ) from error
        steps[-1] = steps[-1].model_copy(update={"response": result, "is_error": bool(result.get("isError"))})
        text = content_text(list(result.get("content") or []))
        for name, path in step.capture.items():
            try:
                variables[name] = capture_value(text, path)
            except PathError as error:
                raise _SetupFailed(
                    Failure(
                        kind=FailureKind.SETUP,
                        check="capture",
                        message=f"setup step {number} ({step.tool}): capture {name} = {path}: {error}",
                        actual=text[:300],
                    )
                ) from error


def _request_step(block: Block, variables: Mapping[str, str]) -> Step:
    """The checked request as the reports show it: the block's kind, and its tool and arguments (or, for the
    other blocks, its fields but the expectations)."""
    tool = getattr(block, "tool", None)
    if isinstance(tool, str):
        request: Any = {"tool": tool, "arguments": fill(getattr(block, "args", {}), variables)}
    else:
        request = block.model_dump(mode="json", exclude={"expect"}, exclude_none=True)
    return Step(kind="request", name=f"{block.kind} {tool}" if tool else block.kind, request=request)


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


def _read_files(paths: list[str]) -> dict[str, bytes | None]:
    contents: dict[str, bytes | None] = {}
    for path in paths:
        try:
            contents[path] = Path(path).read_bytes()
        except OSError:
            contents[path] = None
    return contents
