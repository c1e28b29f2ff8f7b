"""Talk to one server case's server: connect, initialize, set up, request, observe, close."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from toolproof.core.dotpath import PathError, capture_value
from toolproof.core.regular_file import UnreadableFile, read_regular_file
from toolproof.core.template import fill
from toolproof.mcp.errors import RequestFailed
from toolproof.mcp.session import open_session
from toolproof.model.observation import Observation, RpcError
from toolproof.model.result import Failure, FailureKind, Step
from toolproof.model.server_case import Block, Case, Expect, SamplingBlock
from toolproof.model.server_config import SamplingMock
from toolproof.sources.connect import connect_spec
from toolproof.sources.idle import lending_when_idle
from toolproof.sources.options import ServerOptions
from toolproof.sources.requests import OBSERVERS, Straggling, content_text, missing_request

if TYPE_CHECKING:
    from toolproof.mcp.client import Session

FILE_CHECK_MAX_BYTES = 256 * 1024 * 1024
"""The largest file a file expectation reads."""

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


@dataclass
class ServerExchange:
    """What came back from one case's conversation with its server: the observation, or the classified
    failure (timeout, failed request, failed setup) that stopped it; the server's stderr; seconds per
    phase; the setup calls and the request with what came back, as the reports show them; the protocol
    revision spoken with the server (None when no connection was made); what was wrong without failing it
    (lines on stdout that are not MCP)."""

    observation: Observation | None
    failure: Failure | None
    stderr: str
    phases: dict[str, float]
    steps: list[Step] = field(default_factory=list)
    protocol: str | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def stopped(self) -> Failure | None:
        """The failure that stopped the exchange (the `model.observation.Observed` shape)."""
        return self.failure


async def observe_case(
    case: Case,
    options: ServerOptions,
    variables: dict[str, str],
    expect: Expect,
    *,
    on_waiting: Callable[[], None] = lambda: None,
    shared: Session | None = None,
) -> ServerExchange:
    """Start the case's server, set up, make its request and read the files `expect` names; every failure
    of the server becomes a classified failure, not a raise. `variables` gains the setup's captures.

    `on_waiting` is called as soon as the case only waits: its server sits idle during a setup step or the
    request, or the request has been answered (before a wait for notifications still on their way, and
    before the server is shut down). With `shared`, the case talks to that open session instead and leaves
    it open.
    """
    run = _CaseRun(case, options, on_waiting, variables, expect)
    run.session = shared
    try:
        with anyio.fail_after(run.timeout):
            observation = await run.converse()
    except TimeoutError:
        during = _PHASE_WORDS[run.phases.current]
        message = f"timed out after {run.timeout:g}s during {during}{run.task_note()}"
        return run.exchange(None, Failure(kind=FailureKind.TIMEOUT, message=message))
    except RequestFailed as error:
        return run.exchange(None, error.failure, error.stderr)
    except _SetupFailed as error:
        return run.exchange(None, error.failure)
    run.phases.lap("stop", "done")
    return run.exchange(observation, None)


class _SetupFailed(Exception):
    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.message)
        self.failure = failure


class _CaseRun:
    """The state of one case while it talks to its server."""

    def __init__(
        self,
        case: Case,
        options: ServerOptions,
        on_waiting: Callable[[], None],
        variables: dict[str, str],
        expect: Expect,
    ) -> None:
        self.case, self.options, self.on_waiting = case, options, on_waiting
        self.timeout = case.timeout or options.timeout_s
        self.phases = _Phases()
        self.variables = variables
        self.expect = expect
        self.session: Session | None = None
        self.protocol: str | None = None  # the revision spoken, once connected
        self.steps: list[Step] = []  # setup calls and the request, with what came back

    def stderr(self) -> str:
        return self.session.stderr if self.session else ""

    def task_note(self) -> str:
        """What the task the request was answered with had done when the case ran out of time, if any."""
        task = self.session.task_in_flight if self.session else None
        if task is None:
            return ""
        polls = "poll" if task.polls == 1 else "polls"
        return f" (the task {task.task_id} was still {task.status} after {task.polls} {polls} of tasks/get)"

    def warnings(self) -> list[str]:
        from toolproof.mcp.stdio import stray_warning

        stray = stray_warning(self.session.stray_stdout) if self.session else None
        return [stray] if stray else []

    def exchange(
        self, observation: Observation | None, failure: Failure | None, stderr: str = ""
    ) -> ServerExchange:
        """What the case's conversation gave, with `stderr` in place of the session's when given."""
        stderr = stderr or self.stderr()
        return ServerExchange(
            observation, failure, stderr, self.phases.seconds, self.steps, self.protocol, self.warnings()
        )

    async def converse(self) -> Observation:
        """Connect, set up, make the block's request and read the files the expectations name."""
        block = self.case.block
        sampling = (
            SamplingMock(text=block.mock_text, model=block.mock_model, stop_reason=block.stop_reason)
            if isinstance(block, SamplingBlock)
            else None
        )
        if self.session is not None:
            return await self._talk(self.session)
        if missing := missing_request(block):
            raise missing  # no server needed to tell
        spec = connect_spec(
            self.case.server, self.variables, self.options, sampling=sampling, request_timeout=self.timeout
        )
        async with open_session(spec) as session:
            self.session = session
            return await self._talk(session)

    async def _talk(self, session: Session) -> Observation:
        block = self.case.block
        self.protocol = session.protocol_version
        try:
            self.phases.lap("start", "setup")
            async with lending_when_idle(session.pid, self.on_waiting):
                await _run_setup(self.case, session, self.variables, self.steps)
                self.phases.lap("setup", "call")
                before = _read_files(self.expect.file_unchanged or [])
                observe = OBSERVERS[type(block)]
                self.steps.append(_request_step(block, self.variables))
                straggling = Straggling(self.options, self.on_waiting)
                try:
                    observation = await observe(block, session, self.variables, straggling)
                except RequestFailed as error:
                    observation = _expected_error(error, self.expect)
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
            self.on_waiting()
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


def _request_step(block: Block, variables: dict[str, str]) -> Step:
    """The checked request as the reports show it: the block's kind, and its tool and arguments (or, for the
    other blocks, its fields but the expectations)."""
    tool = getattr(block, "tool", None)
    if isinstance(tool, str):
        request: Any = {"tool": tool, "arguments": fill(getattr(block, "args", {}), variables)}
    else:
        request = block.model_dump(mode="json", exclude={"expect"}, exclude_none=True)
    return Step(kind="request", name=f"{block.kind} {tool}" if tool else block.kind, request=request)


def _expected_error(error: RequestFailed, expect: Expect) -> Observation:
    """The JSON-RPC error that answered the request as what the case observed, when its expectations are on
    such an error (`error_code`, `error_data`); any other failure is raised again."""
    failure = error.failure
    code = failure.details.get("code")
    if not expect.expects_error() or failure.kind is not FailureKind.RPC_ERROR or not isinstance(code, int):
        raise error
    message = str(failure.details.get("message", ""))
    return Observation(error=RpcError(code=code, message=message, data=failure.details.get("data")))


def _read_files(paths: list[str]) -> dict[str, bytes | str | None]:
    """Each file's bytes; None when nothing is there; why, when something is there that is not a readable
    regular file (a directory, a FIFO: never waited on)."""
    contents: dict[str, bytes | str | None] = {}
    for path in paths:
        if not os.path.exists(path):
            contents[path] = None
            continue
        try:
            contents[path] = read_regular_file(Path(path), FILE_CHECK_MAX_BYTES)
        except UnreadableFile as error:
            contents[path] = error.reason
    return contents
