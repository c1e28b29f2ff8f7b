"""Which cases may run side by side: running cases at once must never change a verdict.

Cases whose servers have one identity (`sources/shared_servers.py` `identity`: the same command, arguments,
environment and working directory) may share state outside the server process, a file or a database, so
one case could change what another sees between its setup and its request. A case may write that state
when it says `isolate: true`, or when it calls a tool (setup included) that its server lists without
declaring `readOnlyHint: true`; the declarations are asked once per identity, from a server of its own
started before any case of that identity, and only for an identity that several case runs share. That server
is stopped in the background (`running`): the cases that only read start as soon as it has answered, a case
that may write once it has exited. With `--reuse-server` the listing is asked of a shared server instead
(`lister`), which then serves the first case that shares. When they cannot be asked, every case that calls a
tool may write. A tool the server does not list cannot be called, so it writes nothing. Listing, reading and
subscribing to resources, prompts, completions and log levels only read: what they change lives in the one
session, which no other case's server sees (this is where the rule differs from `--reuse-server`'s, whose
cases share a session).

The cases of an identity keep the order of the suite, so a verdict is the one a run of the suite in its
order gives: a case that may write starts once every case before it has finished, and runs alone (its
trials one after another); a read-only case starts once every case before it that may write has finished,
beside the read-only cases around it. For this to never wait on a case not yet started, the scheduler must
start the cases of one identity in suite order (`expected_s` gives them all the same value: the least time
they take together, `critical_path`). A server whose configuration names `{{fixture}}` sees its case's own
fixture copy, so each such case is an identity of its own.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.abc

from toolproof.mcp.errors import RequestFailed
from toolproof.mcp.session import open_session
from toolproof.mcp.spec import ConnectSpec
from toolproof.model.server_case import Case, TrajectoryBlock
from toolproof.run.server_reuse import called_tools, declares_read_only
from toolproof.run.skip import skip_reason
from toolproof.sources.connect import connect_spec
from toolproof.sources.options import ServerOptions
from toolproof.sources.shared_servers import identity

Lister = Callable[[ConnectSpec], Awaitable[list[dict[str, Any]] | None]]
"""Lists an identity's tools on a server that is not one of its own (a shared server); None: it did not."""


class SideBySide:
    """The turns of a run's server cases, given in suite order, each run `runs` times (its trials); turns are
    taken inside `running`. `lister`, when set, is asked for an identity's tools before a server of its own
    is started for that."""

    def __init__(self, cases: Sequence[Case], options: ServerOptions, runs: int = 1) -> None:
        self._options = options
        self.lister: Lister | None = None
        self._tasks: anyio.abc.TaskGroup | None = None
        self._specs: dict[str, ConnectSpec] = {}
        groups: dict[str, list[Case]] = {}
        for case in cases:
            key = self._key(case)
            if key is not None:
                groups.setdefault(key, []).append(case)
        self._groups: dict[int, tuple[str, list[Case]]] = {}
        for key, members in groups.items():
            if len(members) * runs > 1:
                self._groups.update((id(case), (key, members)) for case in members)
        self._done: dict[int, anyio.Event] = {id(case): anyio.Event() for case in cases}
        self._alone: dict[int, bool] = {}
        self._after: dict[int, list[Case]] = {}  # the cases each case waits for
        self._declared: dict[str, anyio.Event] = {}
        self._listed: dict[str, anyio.Event] = {}  # set once the identity's listing server has exited

    @asynccontextmanager
    async def running(self) -> AsyncIterator[SideBySide]:
        """The scope of the run's turns: it ends once every listing server has exited."""
        async with anyio.create_task_group() as tasks:
            self._tasks = tasks
            try:
                yield self
            finally:
                self._tasks = None

    def _key(self, case: Case) -> str | None:
        """The case's server identity; None for a case that starts no server or has a state of its own."""
        if isinstance(case.block, TrajectoryBlock) or skip_reason(case, self._options.environ) is not None:
            return None
        timeout = self._options.timeout_s
        try:
            spec, other = (
                connect_spec(case.server, {"fixture": copy}, self._options, request_timeout=timeout)
                for copy in ("\0one fixture copy", "\0another fixture copy")
            )
        except RequestFailed:
            return None  # the case reports its configuration error
        key = identity(spec)
        if key != identity(other):
            return None  # its server sees the case's own fixture copy
        self._specs.setdefault(key, spec)
        return key

    def fellows(self, item: object) -> list[Case]:
        """The cases that share the item's state (itself included), in suite order; empty when none does."""
        group = self._groups.get(id(item))
        return group[1] if group else []

    def identities(self) -> int:
        """How many server identities have cases that share a state."""
        return len({key for key, _ in self._groups.values()})

    async def declare_all(self) -> None:
        """Decide the turns of every identity now, their listings side by side (else each is decided when the
        first of its cases takes its turn), so that `critical_path` knows them before any case starts."""
        async with anyio.create_task_group() as group:
            for key, members in {key: members for key, members in self._groups.values()}.items():
                group.start_soon(self._declare, key, members)

    def critical_path(self, fellows: Sequence[Case], seconds: Callable[[Case], float]) -> float:
        """The least time the cases of one identity (`fellows`, taking `seconds` each) take: once their turns
        are decided, a case that runs alone after the others, the cases between two such side by side (the
        longest of them); before, one after another (their sum)."""
        if any(id(case) not in self._alone for case in fellows):
            return sum(seconds(case) for case in fellows)
        total = together = 0.0
        for case in fellows:
            if self._alone[id(case)]:
                total += together + seconds(case)
                together = 0.0
            else:
                together = max(together, seconds(case))
        return total + together

    def alone(self, case: Case) -> bool:
        """Whether the case runs alone (known once it got its turn): its trials then run one by one."""
        return self._alone.get(id(case), False)

    @asynccontextmanager
    async def turn(self, item: object) -> AsyncIterator[None]:
        """Wait until every case the item must follow has finished; the item is done when this exits.
        Any other item (a load error, a case with a state of its own) runs at once."""
        group = self._groups.get(id(item))
        if group is None:
            yield
            return
        try:
            await self._declare(*group)
            if self._alone[id(item)]:
                await self._listed[group[0]].wait()
            for case in self._after[id(item)]:
                await self._done[id(case)].wait()
            yield
        finally:
            self._done[id(item)].set()

    async def _declare(self, key: str, members: list[Case]) -> None:
        """Decide which cases of the identity run alone, asking a server of it (once, before any of them
        runs) what its tools declare when that decides it, and what each case waits for: a case that runs
        alone, for every case since the last one that ran alone (that one included); any other, for that
        last one alone (which followed all before it)."""
        if key in self._declared:
            await self._declared[key].wait()
            return
        self._declared[key] = anyio.Event()
        self._listed[key] = listed = anyio.Event()
        writers: set[str] | None = set()
        asked = any(not case.isolate and called_tools(case) for case in members)
        try:
            if asked:
                writers = await self._ask(self._specs[key], listed)
        finally:
            if not asked:
                listed.set()
            last: list[Case] = []  # the last case that runs alone
            since: list[Case] = []  # that one and every case after it
            for case in members:
                alone = may_write(case, writers)
                self._alone[id(case)] = alone
                if alone:
                    self._after[id(case)] = since
                    last, since = [case], [case]
                else:
                    self._after[id(case)] = last
                    since.append(case)
            self._declared[key].set()

    async def _ask(self, spec: ConnectSpec, listed: anyio.Event) -> set[str] | None:
        """The tools the identity's servers list without declaring them read-only, from `lister` or else a
        server of its own, stopped in the background (`listed` is set once it has exited); None when they
        cannot be asked (each case then reports what went wrong with its own server)."""
        try:
            tools = await self.lister(spec) if self.lister else None
            if tools is None:
                assert self._tasks is not None, "turns are taken inside SideBySide.running()"
                tools = await self._tasks.start(self._listing, spec, listed)
            else:
                listed.set()
        except (RequestFailed, TimeoutError):
            return None  # `_listing` has set `listed`
        except BaseException:
            listed.set()  # cancelled: nothing is left to wait for it
            raise
        return {str(tool.get("name")) for tool in tools if not declares_read_only(tool)}

    async def _listing(
        self,
        spec: ConnectSpec,
        listed: anyio.Event,
        *,
        task_status: anyio.abc.TaskStatus[list[dict[str, Any]]] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        """Start a server, hand its tools over as soon as it has listed them, then stop it and set `listed`
        once it has exited."""
        answered = False
        try:
            with anyio.fail_after(self._options.timeout_s):
                async with open_session(spec) as session:
                    task_status.started(await session.list_tools())
                    answered = True
        except (RequestFailed, TimeoutError):
            if not answered:
                raise
        finally:
            listed.set()


def may_write(case: Case, writers: set[str] | None) -> bool:
    """Whether the case may change state another case of its server identity sees, given the tools its
    server lists without declaring them read-only (None: unknown, so any tool may write)."""
    if case.isolate:
        return True
    called = called_tools(case)
    return bool(called) and (writers is None or not writers.isdisjoint(called))
