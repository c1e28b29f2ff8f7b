"""Which cases may run side by side: running cases at once must never change a verdict.

Cases whose servers have one identity (`sources/shared_servers.py` `identity`: the same command, arguments,
environment and working directory) may share state outside the server process, a file or a database, so
one case could change what another sees between its setup and its request. By the rule `--reuse-server`
uses (`run/server_reuse.py`), a case is read-only when nothing in its block can change state
(`alone_reason`) and every tool it calls, setup included, is declared `readOnlyHint: true`. The
declarations are asked once per identity, from a server of its own started before any case of that
identity, and only for an identity that several case runs share. Read-only cases of an identity run side by
side; any other case of it runs alone, and its trials one after another. A server whose configuration names
`{{fixture}}` sees its case's own fixture copy, so each such case is an identity of its own.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import anyio

from toolproof.mcp.errors import RequestFailed
from toolproof.mcp.session import open_session
from toolproof.mcp.spec import ConnectSpec
from toolproof.model.server_case import Case, TrajectoryBlock
from toolproof.run.server_reuse import alone_reason, called_tools, declares_read_only
from toolproof.run.skip import skip_reason
from toolproof.sources.connect import connect_spec
from toolproof.sources.options import ServerOptions
from toolproof.sources.shared_servers import identity


class _Turns:
    """A first-come, first-served turn for one identity: readers together, a writer alone."""

    def __init__(self) -> None:
        self.readers = 0
        self.writing = False
        self.waiting: deque[tuple[bool, anyio.Event]] = deque()

    def _may(self, alone: bool) -> bool:
        return not self.writing and (not alone or self.readers == 0)

    def _admit(self, alone: bool) -> None:
        if alone:
            self.writing = True
        else:
            self.readers += 1

    async def enter(self, alone: bool) -> None:
        if not self.waiting and self._may(alone):
            self._admit(alone)
            return
        entry = (alone, anyio.Event())
        self.waiting.append(entry)
        try:
            await entry[1].wait()
        except BaseException:
            if entry in self.waiting:
                self.waiting.remove(entry)
            else:  # admitted as it was cancelled
                self.leave(alone)
            raise

    def leave(self, alone: bool) -> None:
        if alone:
            self.writing = False
        else:
            self.readers -= 1
        while self.waiting and self._may(self.waiting[0][0]):
            alone, event = self.waiting.popleft()
            self._admit(alone)
            event.set()


class SideBySide:
    """The turns of a run's server cases, each case run `runs` times (its trials)."""

    def __init__(self, cases: Sequence[Case], options: ServerOptions, runs: int = 1) -> None:
        self._options = options
        self._keys: dict[int, str | None] = {}
        self._alone: dict[int, bool] = {}
        self._specs: dict[str, ConnectSpec] = {}
        for case in cases:
            self._keys[id(case)] = self._key(case)
        counts = Counter(key for key in self._keys.values() if key is not None)
        self._contended = {key for key, count in counts.items() if count * runs > 1}
        self._turns = {key: _Turns() for key in self._contended}
        self._declared: dict[str, set[str]] = {}
        self._declaring: dict[str, anyio.Event] = {}

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

    def alone(self, case: Case) -> bool:
        """Whether the case ran alone (decided when it got its turn): its trials then run one by one."""
        return self._alone.get(id(case), False)

    @asynccontextmanager
    async def turn(self, item: object) -> AsyncIterator[None]:
        """Wait until the case may run beside the cases of its identity running now; hold it meanwhile.
        Any other item (a load error) runs at once."""
        key = self._keys.get(id(item))
        if not isinstance(item, Case) or key is None or key not in self._contended:
            yield
            return
        alone = await self._runs_alone(item, key)
        self._alone[id(item)] = alone
        turns = self._turns[key]
        await turns.enter(alone)
        try:
            yield
        finally:
            turns.leave(alone)

    async def _runs_alone(self, case: Case, key: str) -> bool:
        if alone_reason(case) is not None:
            return True
        tools = called_tools(case)
        if not tools:
            return False
        return not set(tools) <= await self._read_only_tools(key)

    async def _read_only_tools(self, key: str) -> set[str]:
        """The tools a server of the identity declares read-only, asked once (while no case of it runs)."""
        if key in self._declared:
            return self._declared[key]
        if key in self._declaring:
            await self._declaring[key].wait()
            return self._declared[key]
        self._declaring[key] = anyio.Event()
        turns = self._turns[key]
        await turns.enter(True)
        try:
            self._declared[key] = await self._ask(self._specs[key])
        finally:
            turns.leave(True)
            self._declared.setdefault(key, set())
            self._declaring[key].set()
        return self._declared[key]

    async def _ask(self, spec: ConnectSpec) -> set[str]:
        """The read-only tools one server declares; none when it cannot be asked (each case then reports
        what went wrong with its own server)."""
        try:
            with anyio.fail_after(self._options.timeout_s):
                async with open_session(spec) as session:
                    tools = await session.list_tools()
        except (RequestFailed, TimeoutError):
            return set()
        return {str(tool.get("name")) for tool in tools if declares_read_only(tool)}
