"""A probe's connection to the server under test, restarted after anything that may have broken it.

`Prober.call` makes one tools/call and returns its `CallOutcome`: the result as sent, or the classified
`Failure`. After a transport failure (the process exited, the pipe closed), a timeout or a protocol error,
the next call starts a fresh server, so one tool that crashes or hangs is never blamed on the tools after
it. What the server wrote to stderr during the call is kept on the outcome. A stdio server without a
working directory of its own runs in a scratch directory (`probe/workdir.py`), the same one across its
restarts, removed when the prober closes.
"""

from __future__ import annotations

import contextlib
import time
from contextlib import AsyncExitStack, ExitStack
from typing import TYPE_CHECKING, Any

import anyio

from toolproof.mcp.errors import RequestFailed
from toolproof.mcp.session import open_session
from toolproof.mcp.spec import ConnectSpec
from toolproof.model.result import Failure, FailureKind
from toolproof.probe.outcome import CallOutcome
from toolproof.probe.workdir import in_scratch

if TYPE_CHECKING:
    from toolproof.mcp.client import Session

RESTART_AFTER = frozenset({FailureKind.TRANSPORT, FailureKind.TIMEOUT, FailureKind.PROTOCOL})
_TIMEOUT_SLACK_S = 2.0


class Prober:
    """Calls tools on one server, opening a session on first use and a fresh one after a broken call.

    Use as an async context manager; `call` from a single task (`call_on` may share a session among
    tasks); `starts` counts the sessions opened.
    """

    def __init__(self, spec: ConnectSpec) -> None:
        self._spec = spec
        self._scratch = ExitStack()
        self._placed = False  # the server's working directory is chosen (on first start)
        self._stack: AsyncExitStack | None = None
        self._session: Session | None = None
        self._stray: list[str] = []  # what closed sessions' servers wrote to stdout that is not JSON-RPC
        self.starts = 0

    async def __aenter__(self) -> Prober:
        return self

    async def __aexit__(self, *exc: object) -> None:
        try:
            await self.close()
        finally:
            self._scratch.close()

    async def session(self) -> Session:
        """The open session, starting the server if needed; raises `RequestFailed` if it cannot start."""
        if self._session is None:
            if not self._placed:
                self._spec = self._scratch.enter_context(in_scratch(self._spec))
                self._placed = True
            stack = AsyncExitStack()
            try:
                self._session = await stack.enter_async_context(open_session(self._spec))
            except BaseException:
                await stack.aclose()
                raise
            self._stack = stack
            self.starts += 1
        return self._session

    @property
    def stray_stdout(self) -> list[str]:
        """The lines every server started so far wrote to stdout that are not JSON-RPC, in order."""
        current = self._session.stray_stdout if self._session is not None else []
        return [*self._stray, *current]

    async def list_tools(self) -> list[dict[str, Any]]:
        """Every tool the server lists (all pages); raises `RequestFailed`."""
        session = await self.session()
        return await session.list_tools()

    async def call(self, name: str, arguments: Any) -> CallOutcome:
        """One tools/call with `arguments` sent exactly as given (even when not an object); a call that
        may have broken the server closes it, so the next call starts a fresh one."""
        started = time.perf_counter()
        try:
            session = await self.session()
        except RequestFailed as error:
            return CallOutcome(None, error.failure, time.perf_counter() - started, error.stderr)
        outcome = await self.call_on(session, name, arguments)
        if broke(outcome):
            await self.close()
        return outcome

    async def call_on(self, session: Session, name: str, arguments: Any) -> CallOutcome:
        """One tools/call on `session`, which stays open whatever happens (calls may share it)."""
        started = time.perf_counter()
        before, spoken = session.stderr, session.protocol_version
        try:
            with anyio.fail_after(self._spec.request_timeout + _TIMEOUT_SLACK_S):
                result = await session.request(
                    "tools/call", {"name": name, "arguments": arguments}, during=f"tools/call {name}"
                )
        except RequestFailed as error:
            stderr = _since(before, session.stderr)
            return CallOutcome(None, error.failure, time.perf_counter() - started, stderr, spoken)
        except TimeoutError:
            stderr = _since(before, session.stderr)
            message = f"tools/call {name}: no answer within {self._spec.request_timeout:g}s"
            failure = Failure(
                kind=FailureKind.TIMEOUT, message=message, details={"during": f"tools/call {name}"}
            )
            return CallOutcome(None, failure, time.perf_counter() - started, stderr, spoken)
        stderr = _since(before, session.stderr)
        return CallOutcome(result, None, time.perf_counter() - started, stderr, spoken)

    async def close(self) -> None:
        """Stop the server (if one runs), keeping its stray stdout lines: the next call starts a fresh one."""
        if self._session is not None:
            self._stray.extend(self._session.stray_stdout)
        stack, self._stack, self._session = self._stack, None, None
        if stack is not None:
            with contextlib.suppress(Exception):  # a broken server may fail again on the way out
                await stack.aclose()


def broke(outcome: CallOutcome) -> bool:
    """Whether the call may have broken the server (a transport failure, a timeout or a protocol error)."""
    return outcome.failure is not None and outcome.failure.kind in RESTART_AFTER


def _since(before: str, after: str) -> str:
    """What the server wrote to stderr during the call (its whole tail once the tail has rolled over)."""
    return after[len(before) :] if after.startswith(before) else after
