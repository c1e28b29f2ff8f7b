"""`--reuse-server`: which cases may share a server, and running one on a shared server.

A case shares only when nothing it does can change what a later case sees, proven two ways. Statically
(`alone_reason`): no `isolate: true`, no file or `net_delta` expectation, and a block that only reads
(tools/call, tools/list or completion; never resources, prompts, logging, notifications or sampling,
whose answers depend on subscriptions, levels and timing a previous case may have set). Dynamically
(`Reuse.observe`): every tool it calls, setup included, is declared `readOnlyHint: true` by the server
itself, or is not listed by it at all. A tool the server does not list cannot be called: the server answers
it as a fresh one would, with an error, and writes nothing. Should it answer such a call otherwise than
with a JSON-RPC error (a result, even an isError one, or nothing), the case keeps its verdict (every case
before it on that server only read) and its server is stopped, so no later case sees what the call may have
done. Every other case gets a fresh server, as without the flag. Shared servers see one run-wide fixture
copy, which only such cases use; a shared server that fails a case at the transport or protocol level, or
times out, is stopped, and the case runs again on a fresh server if an earlier case had used it.

Sharing costs a tools/list, so it is tried only where it can pay: for a server identity that at least two
case runs of the suite may share, and for a case none of whose tools a server of that identity has already
declared not read-only (what the servers of an identity declared is remembered for the run). Every other
case starts its one fresh server straight away. A case that may not share never runs on the shared server
that listed the tools for it: that server has answered a tools/list the case did not ask for, so it is not
the fresh server the case's verdict is defined on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import anyio

from toolproof.mcp.errors import RequestFailed
from toolproof.mcp.spec import ConnectSpec
from toolproof.model.result import FailureKind
from toolproof.model.server_case import AssertBlock, Case, CompletionBlock, Expect, ToolsBlock
from toolproof.run.skip import skip_reason
from toolproof.sources.connect import connect_spec
from toolproof.sources.options import ServerOptions
from toolproof.sources.server import ServerExchange, observe_case
from toolproof.sources.shared_servers import SharedServers, identity

SHARED_BLOCKS = (AssertBlock, ToolsBlock, CompletionBlock)
SIDE_EFFECT_CHECKS = ("net_delta", "file_contains", "file_not_contains", "file_not_exists", "file_unchanged")
BROKEN_KINDS = frozenset({FailureKind.TRANSPORT, FailureKind.PROTOCOL, FailureKind.TIMEOUT})
DECLARATION_WAIT_S = 5.0


def alone_reason(case: Case) -> str | None:
    """Why the case needs a fresh server of its own whatever its tools declare; None if it may share."""
    if case.isolate:
        return "isolate: true"
    if not isinstance(case.block, SHARED_BLOCKS):
        return f"a {case.block.kind} block"
    expect = getattr(case.block, "expect", None)
    if isinstance(expect, Expect):
        for name in SIDE_EFFECT_CHECKS:
            if getattr(expect, name) is not None:
                return f"a {name} expectation"
    return None


def called_tools(case: Case) -> list[str]:
    """Every tool the case calls: its setup steps', then its block's (a tool call, or the call that a
    sampling, logging or notifications block makes)."""
    tool = getattr(case.block, "tool", None)
    return [step.tool for step in case.setup] + ([tool] if isinstance(tool, str) else [])


def declares_read_only(declared: Mapping[str, Any] | None) -> bool:
    """Whether a tool as tools/list declared it says `readOnlyHint: true`."""
    annotations = (declared or {}).get("annotations")
    return isinstance(annotations, dict) and annotations.get("readOnlyHint") is True


@dataclass
class SharedRun:
    """A case's exchange with a shared server, the variables its expectations were resolved with, and the
    server's number."""

    exchange: ServerExchange
    server: int


class Reuse:
    """The run's shared servers, the one fixture copy they see, and what their servers declared.

    `cases` are the cases of the run, each run `runs` times: they tell which server identities more than
    one case run may share, and how many cases will come for each.
    """

    def __init__(
        self,
        servers: SharedServers,
        fixture: str | None,
        cases: Sequence[Case],
        options: ServerOptions,
        runs: int = 1,
    ) -> None:
        self.servers = servers
        self.variables = {"fixture": fixture} if fixture else {}
        self._not_read_only: dict[str, set[str]] = {}  # per identity: tools a server of it did not declare
        candidates: dict[str, int] = {}
        for case in cases:
            spec = self._spec(case, options)
            if spec is not None and skip_reason(case, options.environ) is None:
                servers.expect(spec, runs)
                key = identity(spec)
                candidates[key] = candidates.get(key, 0) + runs
        self._sharable = {key for key, count in candidates.items() if count > 1}

    def _spec(self, case: Case, options: ServerOptions) -> ConnectSpec | None:
        """The spec of the shared server the case would borrow; None if it may not share."""
        if alone_reason(case) is not None:
            return None
        try:
            return connect_spec(case.server, self.variables, options, request_timeout=options.timeout_s)
        except RequestFailed:
            return None  # the fresh run reports the configuration error

    async def listing(self, spec: ConnectSpec) -> list[dict[str, Any]] | None:
        """The tools a shared server of the identity lists, asked for the run's side-by-side turns
        (`run/side_by_side.py`); the server is then kept for the first case that shares. None when no case
        may share a server of the identity, or its server cannot list them."""
        if identity(spec) not in self._sharable:
            return None
        try:
            lease = await self.servers.borrow(spec, arriving=False)
        except RequestFailed:
            return None
        try:
            with anyio.fail_after(DECLARATION_WAIT_S):
                tools = await lease.session.list_tools()
        except (RequestFailed, TimeoutError):
            self.servers.give_back(spec, lease, healthy=False)
            return None
        self.servers.give_back(spec, lease, healthy=True)
        return tools

    async def observe(
        self,
        case: Case,
        options: ServerOptions,
        resolve: Callable[[Mapping[str, str]], Expect],
        on_waiting: Callable[[], None],
    ) -> SharedRun | None:
        """The case run on a shared server; None when it must run on a fresh one instead (it may not
        share, it has nobody to share with, or its shared server broke under it after serving an earlier
        case)."""
        spec = self._spec(case, options)
        if spec is None:
            return None
        key = identity(spec)
        if key not in self._sharable:
            self.servers.forgo(spec)
            return None
        known = self._not_read_only.setdefault(key, set())
        if known.intersection(called_tools(case)):
            self.servers.forgo(spec)
            return None
        try:
            lease = await self.servers.borrow(spec)
        except RequestFailed:
            self._sharable.discard(key)  # nor will the next case's; the fresh run reports why
            return None
        session = lease.session
        try:
            with anyio.fail_after(DECLARATION_WAIT_S):
                declared = {tool: await session.tool_declaration(tool) for tool in called_tools(case)}
        except (RequestFailed, TimeoutError):
            self.servers.give_back(spec, lease, healthy=False)
            return None
        unlisted = {
            tool for tool, found in declared.items() if found is None and tool not in session.excluded_tools
        }
        refused = [
            tool for tool, found in declared.items() if tool not in unlisted and not declares_read_only(found)
        ]
        if refused:
            known.update(refused)
            self.servers.give_back(spec, lease, healthy=True)
            return None
        variables = dict(self.variables)
        junk = len(session.protocol_errors)
        exchange = await observe_case(
            case, options, variables, resolve(variables), on_waiting=on_waiting, shared=session
        )
        kind = exchange.failure.kind if exchange.failure else None
        healthy = kind not in BROKEN_KINDS and len(session.protocol_errors) == junk
        untouched = session.calls_refused(unlisted)  # an unlisted tool the server ran may have written
        self.servers.give_back(spec, lease, healthy=healthy and untouched)
        if not healthy and lease.used:
            return None
        return SharedRun(exchange, lease.number)
