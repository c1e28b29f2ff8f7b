"""Every misbehaviour of a stdio server ends as the right RequestFailed kind, in bounded time, with no
process left behind."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from tests.integration.mcp.helpers import MISBEHAVING, alive, listening, misbehaving, tiny, with_fields

from toolproof.mcp.errors import RequestFailed
from toolproof.mcp.process import reap_strays
from toolproof.mcp.session import open_session
from toolproof.mcp.spec import ConnectSpec
from toolproof.model.result import FailureKind
from toolproof.model.server_config import Transport

pytestmark = pytest.mark.servers


async def call_fails(mode: str, **fields: Any) -> tuple[RequestFailed, int, float]:
    """Open a session on the misbehaving server, call its tool, and return the failure, pid and time."""
    started = time.perf_counter()
    async with open_session(misbehaving(mode, **fields)) as session:
        pid = session.pid
        assert pid is not None
        with pytest.raises(RequestFailed) as caught:
            await session.call_tool("t", {})
    assert not alive(pid)
    return caught.value, pid, time.perf_counter() - started


def pids_in(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()]


async def test_garbage_on_stdout_is_recorded_and_tolerated() -> None:
    async with open_session(misbehaving("garbage")) as session:
        result = await session.call_tool("t", {})
        assert result["content"][0]["text"] == "ok"
        errors = session.protocol_errors
    assert len(errors) == 3
    assert "Starting notes server v1.0" in errors[0]
    assert "DEBUG handling tools/call" in errors[2]


async def test_silent_initialize_times_out() -> None:
    started = time.perf_counter()
    with pytest.raises(RequestFailed) as caught:
        async with open_session(misbehaving("silent_init", request_timeout=0.5, stop_grace=0.1)):
            pass
    assert caught.value.failure.kind is FailureKind.TIMEOUT
    assert caught.value.failure.message == "initialize: no answer within 0.5s"
    assert time.perf_counter() - started < 10


async def test_an_outer_deadline_during_initialize_still_stops_the_server(tmp_path: Path) -> None:
    pid_file = tmp_path / "server.pid"
    started = time.perf_counter()
    spec = misbehaving("silent_init", {"SERVER_PID_FILE": str(pid_file)}, request_timeout=30)
    with pytest.raises(TimeoutError), anyio.fail_after(0.5):
        async with open_session(spec):
            pass
    assert time.perf_counter() - started < 5
    (server,) = pids_in(pid_file)
    assert not alive(server)


async def test_hung_call_times_out_and_the_server_is_stopped() -> None:
    failure, _, elapsed = await call_fails("hang", request_timeout=1.0, stop_grace=0.1)
    assert failure.failure.kind is FailureKind.TIMEOUT
    assert failure.failure.message == "tools/call t: no answer within 1s"
    assert elapsed < 10


async def test_exit_mid_call_names_the_exit_code_and_stderr() -> None:
    failure, _, elapsed = await call_fails("exit_mid_call")
    assert failure.failure.kind is FailureKind.TRANSPORT
    assert failure.failure.message == (
        "tools/call t: the server exited with code 3 (stderr: panic: database is locked)"
    )
    assert failure.stderr == "panic: database is locked\n"
    assert elapsed < 10


async def test_exit_while_a_child_holds_stdout_is_an_exit_not_a_timeout(tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    fields = {"env": {"PID_FILE": str(pid_file)}, "request_timeout": 30.0}
    failure, _, elapsed = await call_fails("exit_leaving_child", **fields)
    assert failure.failure.kind is FailureKind.TRANSPORT
    assert failure.failure.message == (
        "tools/call t: the server exited with code 3 (stderr: panic: database is locked)"
    )
    assert elapsed < 10
    (child,) = pids_in(pid_file)
    assert not alive(child)


async def test_exit_at_start_fails_initialize_with_the_reason() -> None:
    with pytest.raises(RequestFailed) as caught:
        async with open_session(misbehaving("exit_at_start")):
            pass
    failure = caught.value.failure
    assert failure.kind is FailureKind.TRANSPORT
    assert failure.message == (
        "initialize: the server exited with code 2"
        " (stderr: fatal: configuration file /etc/notes.toml not found)"
    )


async def test_unknown_command_is_a_transport_failure_naming_it() -> None:
    with pytest.raises(RequestFailed) as caught:
        async with open_session(with_fields(tiny(), command="no-such-mcp-server")):
            pass
    failure = caught.value.failure
    assert failure.kind is FailureKind.TRANSPORT
    assert failure.message.startswith("start: command not found: 'no-such-mcp-server' is not on the server's")


async def test_huge_result_arrives_whole_and_fast() -> None:
    async with open_session(misbehaving("huge")) as session:
        started = time.perf_counter()
        result = await session.call_tool("t", {})
        elapsed = time.perf_counter() - started
    assert len(result["content"][0]["text"]) == 20 << 20
    assert elapsed < 3


async def test_result_over_the_cap_fails_the_session_naming_the_cap() -> None:
    two_mib = {"HUGE_BYTES": str(2 << 20)}
    failure, _, elapsed = await call_fails("huge", env=two_mib, max_message_bytes=1 << 20, stop_grace=0.1)
    assert failure.failure.kind is FailureKind.PROTOCOL
    assert failure.failure.message == (
        "tools/call t: the server sent a message larger than the 1 MiB limit (max_message_bytes)"
    )
    assert elapsed < 10


async def test_unparseable_response_fails_its_request_at_once() -> None:
    failure, _, elapsed = await call_fails("deep_nesting", request_timeout=20.0)
    assert failure.failure.kind is FailureKind.PROTOCOL
    assert "could not be read (Invalid JSON: recursion limit exceeded" in failure.failure.message
    assert elapsed < 5


async def test_invalid_result_shape_is_a_protocol_failure() -> None:
    failure, _, _ = await call_fails("bad_result")
    assert failure.failure.kind is FailureKind.PROTOCOL
    assert failure.failure.message.startswith("tools/call t: the server's reply is not valid MCP")


async def test_sigterm_ignoring_server_is_killed_within_the_graces() -> None:
    async with open_session(misbehaving("ignore_sigterm", stop_grace=0.2, term_grace=0.2)) as session:
        pid = session.pid
        assert pid is not None
        await session.call_tool("t", {})
        started = time.perf_counter()
    assert time.perf_counter() - started < 3
    assert not alive(pid)


@pytest.mark.serial
async def test_teardown_is_shielded_from_an_outer_deadline() -> None:
    pids: list[int] = []
    with pytest.raises(TimeoutError), anyio.fail_after(0.5):
        async with open_session(misbehaving("ignore_sigterm", stop_grace=0.2, term_grace=0.2)) as session:
            assert session.pid is not None
            pids.append(session.pid)
            await anyio.sleep(30)
    assert not alive(pids[0])


@pytest.mark.parametrize("mode", ["group_child", "setsid_child"])
async def test_children_die_with_the_server(mode: str, tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    async with open_session(misbehaving(mode, env={"PID_FILE": str(pid_file)})) as session:
        await session.call_tool("t", {})
        (child,) = pids_in(pid_file)
        assert alive(child)
    assert not alive(child)


async def test_double_forked_daemon_is_reaped_at_the_end_of_the_run(tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    async with open_session(misbehaving("daemon", env={"PID_FILE": str(pid_file)})) as session:
        await session.call_tool("t", {})
    (daemon,) = pids_in(pid_file)
    assert daemon in reap_strays()
    assert not alive(daemon)
    assert reap_strays() == []


async def test_stderr_flood_neither_blocks_nor_grows_without_bound() -> None:
    async with open_session(misbehaving("stderr_flood")) as session:
        result = await session.call_tool("t", {})
        assert result["content"][0]["text"] == "ok"
        stderr = session.stderr
    assert stderr.startswith("[... ")
    assert len(stderr) < 70 * 1024


async def test_wire_tap_sees_notifications_the_sdk_drops() -> None:
    async with open_session(misbehaving("odd_notifications")) as session:
        mark = session.mark()
        await session.call_tool("t", {})
        seen = session.notifications[mark:]
    assert [(n.method, n.params) for n in seen] == [
        ("notifications/x-vendor/custom", {"answer": 42}),
        ("notifications/message", {"level": "NOTALEVEL", "data": 1}),
        ("notifications/message", {"level": "info", "data": "ok"}),
    ]
    assert all(0 < n.at < 10 for n in seen)


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/json", 'not a JSON-RPC message): {"hello": "not mcp"}'),
        ("/garbage", "Invalid JSON: expected ident at line 1 column 3): Internal thing went wrong"),
        ("/html", "Content-Type 'text/html', not application/json or text/event-stream): <html><body>"),
    ],
)
async def test_an_http_endpoint_that_is_not_mcp_is_a_protocol_failure_naming_what_it_sent(
    path: str, reason: str
) -> None:
    with listening([sys.executable, str(MISBEHAVING), "not_mcp_http"]) as port:
        url = f"http://127.0.0.1:{port}{path}"
        with pytest.raises(RequestFailed) as caught:
            async with open_session(ConnectSpec(transport=Transport.HTTP, url=url, request_timeout=10)):
                pass
    failure = caught.value.failure
    assert failure.kind is FailureKind.PROTOCOL
    assert failure.message.startswith(f"initialize: the reply to POST {url} is not JSON-RPC (")
    assert reason in failure.message


async def test_a_reply_with_a_stray_id_fails_its_request_at_once_naming_the_reply() -> None:
    failure, _, elapsed = await call_fails("wrong_id", request_timeout=20)
    assert failure.failure.kind is FailureKind.PROTOCOL
    assert failure.failure.message.startswith(
        "tools/call t: the server replied with id 1002, but the request's id is 2: "
        '{"jsonrpc":"2.0","id":1002,"result":'
    )
    assert elapsed < 10


async def test_a_batch_array_fails_its_request_at_once_naming_the_batch() -> None:
    failure, _, elapsed = await call_fails("batch", request_timeout=20)
    assert failure.failure.kind is FailureKind.PROTOCOL
    assert failure.failure.message.startswith(
        "tools/call t: the server answered in a JSON-RPC batch array, which MCP does not allow: "
        '[{"jsonrpc": "2.0", "id": 2, "result":'
    )
    assert elapsed < 10


async def test_a_flood_of_notifications_is_recorded_whole() -> None:
    async with open_session(misbehaving("notification_flood", env={"NOTIFICATIONS": "2000"})) as session:
        result = await session.call_tool("t", {})
        assert result["content"][0]["text"] == "ok"
        assert len(session.notifications) == 2000
        assert {note.method for note in session.notifications} == {"notifications/message"}
