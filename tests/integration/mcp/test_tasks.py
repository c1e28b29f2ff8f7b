"""Tasks (the io.modelcontextprotocol/tasks extension of 2026-07-28) against jobs_server, a server on the
official SDK with its own task layer: the session follows a task to its end over stdio and HTTP (where the
server refuses a tasks/* request whose Mcp-Name is not the taskId), answers input_required once with
tasks/update, cancels when told, polls no faster than pollIntervalMs, and advertises the extension only in
the 2026-07-28 era."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable
from typing import Any

import anyio
import pytest
from tests.integration.mcp.helpers import ROOT, stdio

from toolproof.mcp.errors import RequestFailed
from toolproof.mcp.session import open_session
from toolproof.mcp.spec import ConnectSpec, Mocks, ProtocolMode
from toolproof.model.result import FailureKind
from toolproof.model.server_case import TaskOptions
from toolproof.model.server_config import ElicitationMock, Transport

pytestmark = pytest.mark.servers

JOBS = ROOT / "examples" / "servers" / "jobs_server.py"
TASKS = "io.modelcontextprotocol/tasks"
POLL_INTERVAL_S = 0.05  # jobs_server's pollIntervalMs
CONFIRM = Mocks(elicitation=ElicitationMock(action="accept", content={"confirm": True}))


def jobs(protocol: ProtocolMode = "2026-07-28", mocks: Mocks = CONFIRM) -> ConnectSpec:
    return stdio(sys.executable, str(JOBS), protocol=protocol, mocks=mocks)


@pytest.fixture(scope="module")
def jobs_http(http_server: Callable[[list[str], str], str]) -> ConnectSpec:
    url = http_server([sys.executable, str(JOBS), "--transport", "streamable-http"], "/mcp")
    return ConnectSpec(transport=Transport.HTTP, url=url, protocol="2026-07-28", mocks=CONFIRM)


def sent(wire: list[Any], method: str) -> list[Any]:
    """The requests of `method` the client sent, in order."""
    return [r for r in wire if r.direction == "out" and getattr(r.message, "method", None) == method]


async def test_a_task_is_followed_to_its_result_polling_no_faster_than_asked() -> None:
    async with open_session(jobs()) as session:
        result, task = await session.call_tool_traced("build_report", {"pages": 2})
        wire = session.wire
    assert result["content"] == [{"type": "text", "text": "Report ready: 2 pages"}]
    assert task is not None
    assert (task.status, task.states) == ("completed", ["working", "completed"])
    assert not task.cancel_sent and task.updates == 0
    polls = sent(wire, "tasks/get")
    assert len(polls) == task.polls >= 2  # 200 ms of work, polled every 50 ms or more
    assert {poll.message.params["taskId"] for poll in polls} == {task.task_id}
    gaps = [later.at - earlier.at for earlier, later in itertools.pairwise(polls)]
    assert min(gaps) >= POLL_INTERVAL_S * 0.9
    assert task.duration_s >= 0.2
    call = sent(wire, "tools/call")[0].message
    assert TASKS in call.params["_meta"]["io.modelcontextprotocol/clientCapabilities"]["extensions"]


async def test_input_required_is_answered_once_by_the_mock_and_a_failed_task_keeps_its_error() -> None:
    async with open_session(jobs()) as session:
        result, task = await session.call_tool_traced("approve_deploy", {"service": "api"})
        failed_result, failed = await session.call_tool_traced("flaky_job", {})
        with pytest.raises(RequestFailed) as raised:  # a call outside an assert block fails
            await session.call_tool("flaky_job", {})
        wire = session.wire
    assert result["content"][0]["text"] == "Deployed api"
    assert task is not None and task.states == ["input_required", "working", "completed"]
    updates = sent(wire, "tasks/update")
    assert len(updates) == task.updates == 1
    answer = {"confirm-deploy": {"action": "accept", "content": {"confirm": True}}}
    params = {key: value for key, value in updates[0].message.params.items() if key != "_meta"}
    assert params == {"taskId": task.task_id, "inputResponses": answer}
    assert failed_result == {}
    assert failed is not None and failed.status == "failed"
    assert failed.error == {"code": -32603, "message": "the worker running flaky_job crashed"}
    assert raised.value.failure.kind is FailureKind.RPC_ERROR
    message = raised.value.failure.message
    assert "failed with JSON-RPC error -32603: the worker running flaky_job crashed" in message


async def test_cancel_after_polls_or_a_duration_and_the_poll_cap() -> None:
    async with open_session(jobs()) as session:
        _, by_polls = await session.call_tool_traced("endless", {}, task=TaskOptions(cancel_after_polls=2))
        _, by_time = await session.call_tool_traced("endless", {}, task=TaskOptions(cancel_after_ms=150))
        with pytest.raises(RequestFailed) as capped:
            await session.call_tool_traced("endless", {}, task=TaskOptions(max_polls=3))
        wire = session.wire
    assert by_polls is not None and by_polls.status == "cancelled" and by_polls.cancel_sent
    assert by_polls.polls == 3  # cancelled after the second poll, seen cancelled on the third
    assert by_time is not None and by_time.status == "cancelled" and by_time.duration_s >= 0.15
    assert capped.value.failure.kind is FailureKind.TIMEOUT
    assert "still working after 3 polls of tasks/get (task.max_polls: 3)" in capped.value.failure.message
    assert len(sent(wire, "tasks/cancel")) == 3  # the capped task is cancelled too, as a courtesy


async def test_over_http_every_tasks_request_is_routed_by_its_task_id(jobs_http: ConnectSpec) -> None:
    async with open_session(jobs_http) as session:
        result, task = await session.call_tool_traced("approve_deploy", {"service": "db"})
        _, cancelled = await session.call_tool_traced("endless", {}, task=TaskOptions(cancel_after_polls=0))
    assert result["content"][0]["text"] == "Deployed db"
    assert task is not None and task.updates == 1 and task.status == "completed"
    assert cancelled is not None and cancelled.status == "cancelled" and cancelled.polls == 1


async def test_the_handshake_era_never_advertises_tasks_and_gets_answers_at_once() -> None:
    async with open_session(jobs("legacy")) as session:
        result, task = await session.call_tool_traced("build_report", {"pages": 1})
        with pytest.raises(RequestFailed) as refused:
            await session.call_tool("endless", {})
        wire = session.wire
    assert task is None and result["content"][0]["text"] == "Report ready: 1 pages"
    assert "extensions" not in sent(wire, "initialize")[0].message.params["capabilities"]
    assert refused.value.failure.details["code"] == -32021


BAD_TASKS = ROOT / "tests" / "servers" / "bad_tasks_server.py"


@pytest.mark.parametrize(
    ("tool", "said"),
    [
        ("no_id", "the CreateTaskResult: the task has no taskId string (taskId: None)"),
        ("wrong_id", "tasks/get: the task has taskId 'someone-else', expected 'wrong_id'"),
        ("unknown_status", "tasks/get: task unknown_status: unknown status 'paused'"),
        ("no_result", "tasks/get: task no_result is completed without a result object"),
        ("bad_input", "the server's reply is not valid MCP"),
    ],
)
async def test_a_task_that_breaks_the_extension_fails_as_protocol(tool: str, said: str) -> None:
    async with open_session(stdio(sys.executable, str(BAD_TASKS), protocol="2026-07-28")) as session:
        with pytest.raises(RequestFailed) as raised:
            await session.call_tool_traced(tool, {})
    assert raised.value.failure.kind is FailureKind.PROTOCOL
    assert raised.value.failure.message.startswith(f"tools/call {tool}: {said}")


async def test_the_case_timeout_fires_while_a_task_asks_to_be_polled_in_an_hour() -> None:
    async with open_session(stdio(sys.executable, str(BAD_TASKS), protocol="2026-07-28")) as session:
        await session.list_tools()  # the server is up
        with anyio.fail_after(10):  # the case's timeout: it would otherwise wait an hour
            with anyio.move_on_after(1):
                await session.call_tool_traced("slow_poll", {})
            task = session.task_in_flight
    assert task is not None and (task.status, task.polls) == ("working", 0)
