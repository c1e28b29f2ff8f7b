"""`--reuse-server` on a real server, below the command line: what an identity's servers declared is
remembered, a shared server stops as soon as no case is left to borrow it, a server given back soon is
taken rather than a new one started, and a case that calls a tool its server does not list shares."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from tests.integration.mcp.helpers import MISBEHAVING, alive

from toolproof.model.server_case import AssertBlock, Case, Expect, SourceRef
from toolproof.model.server_config import ServerConfig
from toolproof.run.server_reuse import Reuse
from toolproof.sources.connect import connect_spec
from toolproof.sources.options import ServerOptions
from toolproof.sources.server import observe_case
from toolproof.sources.shared_servers import SharedServers

pytestmark = pytest.mark.servers


def case(name: str, tool: str, methods: Path) -> Case:
    """A case on the on_request server, which records every request it receives in `methods`."""
    args = [str(MISBEHAVING), "on_request"]
    server = ServerConfig(command=sys.executable, args=args, env={"METHODS_FILE": str(methods)})
    source = SourceRef(file=Path(f"{name}.yaml"))
    return Case(name=name, source=source, server=server, block=AssertBlock(tool=tool))


def no_expect(variables: object) -> Expect:
    return Expect()


@asynccontextmanager
async def reusing(cases: list[Case]) -> AsyncIterator[tuple[Reuse, ServerOptions]]:
    """`--reuse-server` for `cases`: their `Reuse` over a pool of shared servers, all stopped on exit."""
    options = ServerOptions(environ=dict(os.environ), reuse_server=True)
    async with anyio.create_task_group() as group:
        servers = SharedServers(group)
        try:
            yield Reuse(servers, None, cases, options), options
        finally:
            servers.close_all()


async def test_a_tool_known_not_read_only_starts_no_server_to_be_listed(tmp_path: Path) -> None:
    methods = tmp_path / "methods"
    writes, writes_again, reads = case("w1", "w", methods), case("w2", "w", methods), case("r", "t", methods)
    async with reusing([writes, writes_again, reads]) as (reuse, options):
        assert await reuse.observe(writes, options, no_expect, lambda: None) is None  # w declared writing
        assert methods.read_text().split() == ["initialize", "tools/list"]
        shared = await reuse.observe(reads, options, no_expect, lambda: None)  # takes the idle server back
        assert shared is not None and shared.exchange.failure is None
        # no server of the identity is idle now, yet the second writer starts none just to list its tools
        assert await reuse.observe(writes_again, options, no_expect, lambda: None) is None
        assert methods.read_text().split() == ["initialize", "tools/list", "tools/call"]


async def test_the_last_case_of_an_identity_stops_its_server_before_the_run_ends(tmp_path: Path) -> None:
    methods = tmp_path / "methods"
    first, second = case("r1", "t", methods), case("r2", "t", methods)
    async with reusing([first, second]) as (reuse, options):
        one = await reuse.observe(first, options, no_expect, lambda: None)
        assert one is not None and one.exchange.observation is not None
        pid = int(one.exchange.observation.text.rsplit(" ", 1)[1])  # "ok from PID"
        assert alive(pid)  # kept for the second case
        two = await reuse.observe(second, options, no_expect, lambda: None)
        assert two is not None and two.server == one.server
        with anyio.fail_after(10):
            while alive(pid):  # stopped with no close_all: nobody is left to borrow it
                await anyio.sleep(0.05)


async def test_a_case_takes_a_server_given_back_sooner_than_a_new_one_would_start(tmp_path: Path) -> None:
    """While the identity's only server is lent, the next case waits as long as that server took to start for
    it to come back, and gets it; when it does not come back in that time, a new server starts."""
    reads = case("r", "t", tmp_path / "methods")
    options = ServerOptions(environ=dict(os.environ), reuse_server=True)
    spec = connect_spec(reads.server, {}, options, request_timeout=options.timeout_s)
    async with anyio.create_task_group() as group:
        servers = SharedServers(group)
        servers.expect(spec, 3)
        first = await servers.borrow(spec)

        async def give_back_soon() -> None:
            await anyio.sleep(0.01)
            servers.give_back(spec, first, healthy=True)

        group.start_soon(give_back_soon)
        second = await servers.borrow(spec)  # the first server is still lent as this asks
        assert second.number == first.number and second.used
        third = await servers.borrow(spec)  # the second case keeps it: a new server
        assert third.number != first.number and not third.used
        servers.give_back(spec, second, healthy=True)
        servers.give_back(spec, third, healthy=True)
        servers.close_all()


def time_case(name: str, tool: str, arguments: dict[str, str]) -> Case:
    """A case on mcp-server-time (PyPI), whose tools all declare `readOnlyHint: true`."""
    server = ServerConfig(command="mcp-server-time", args=["--local-timezone", "UTC"])
    source = SourceRef(file=Path(f"{name}.yaml"))
    return Case(name=name, source=source, server=server, block=AssertBlock(tool=tool, args=arguments))


async def test_a_case_calling_a_tool_the_server_does_not_list_shares_and_keeps_its_fresh_verdict() -> None:
    """mcp-server-time answers an unlisted tool with a JSON-RPC error: the case runs on the shared server
    with the failure a fresh server gives it, and the server goes on serving the next case."""
    now = time_case("now", "get_current_time", {"timezone": "UTC"})
    moon = time_case("moon", "get_moon_phase", {})
    later = time_case("later", "get_current_time", {"timezone": "Asia/Tokyo"})
    async with reusing([now, moon, later]) as (reuse, options):
        fresh = await observe_case(moon, options, {}, Expect())
        runs = [await reuse.observe(each, options, no_expect, lambda: None) for each in (now, moon, later)]
    assert fresh.failure is not None and "Unknown tool: get_moon_phase" in fresh.failure.message
    assert all(run is not None for run in runs)
    first, unknown, last = (run for run in runs if run is not None)
    assert unknown.exchange.failure == fresh.failure
    assert first.server == unknown.server == last.server
    assert last.exchange.failure is None


async def test_a_server_that_runs_a_tool_it_does_not_list_serves_no_later_case(tmp_path: Path) -> None:
    """The on_request server answers any tool, listed or not: the call of its unlisted tool may have written,
    so that case keeps its verdict and its server is stopped; the next case gets another one."""
    methods = tmp_path / "methods"
    reads, hidden, again = case("r1", "t", methods), case("h", "hidden", methods), case("r2", "t", methods)
    async with reusing([reads, hidden, again]) as (reuse, options):
        one = await reuse.observe(reads, options, no_expect, lambda: None)
        two = await reuse.observe(hidden, options, no_expect, lambda: None)
        assert one is not None and two is not None and two.server == one.server
        assert two.exchange.observation is not None and two.exchange.observation.text.startswith("ok")
        pid = int(two.exchange.observation.text.rsplit(" ", 1)[1])
        with anyio.fail_after(10):
            while alive(pid):  # stopped at once, though a case of its identity is still to come
                await anyio.sleep(0.05)
        three = await reuse.observe(again, options, no_expect, lambda: None)
        assert three is not None and three.server != one.server
