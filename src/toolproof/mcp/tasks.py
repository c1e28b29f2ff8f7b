"""Follow a task to its end: the client side of the io.modelcontextprotocol/tasks extension (2026-07-28).

A server that negotiated the extension may answer a tools/call with a task (`resultType: "task"`) instead
of its result. The client polls `tasks/get` at the task's `pollIntervalMs`, answers the `inputRequests` of
an `input_required` task with `tasks/update` (once per key), sends `tasks/cancel` when the case's options
say so, and reads the terminal status: `completed` with the tool's result inline, `failed` with a JSON-RPC
error, or `cancelled`. The SDK has no tasks client; it only advertises the extension (`TaskExtension`),
and only in the 2026-07-28 era, where the extension is defined.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from contextlib import suppress
from typing import Any, Literal, Protocol

import anyio
import mcp_types as types
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ConfigDict, TypeAdapter

from toolproof.mcp.errors import RequestFailed
from toolproof.model.observation import TaskRecord
from toolproof.model.result import Failure, FailureKind
from toolproof.model.server_case import TaskOptions

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
TASK_RESULT = "task"
TERMINAL = frozenset({"completed", "failed", "cancelled"})
STATUSES = frozenset({"working", "input_required", *TERMINAL})
DEFAULT_POLL_S = 0.2
"""How long to wait between polls when the task gives no `pollIntervalMs`."""
MIN_POLL_S = 0.005
INPUT_REQUESTS: TypeAdapter[dict[str, types.InputRequest]] = TypeAdapter(dict[str, types.InputRequest])


class _CreatedTask(types.Result):
    """The CreateTaskResult shape, as the SDK's claim table needs it."""

    model_config = ConfigDict(extra="allow")

    result_type: Literal["task"] = "task"


async def _not_through_the_sdk(created: _CreatedTask, context: ClaimContext) -> types.CallToolResult:
    raise RuntimeError("toolproof follows tasks itself (toolproof.mcp.tasks.follow_task)")


class TaskExtension(ClientExtension):
    """The tasks extension as the SDK sees it: a claim on `resultType: "task"`, so the SDK advertises the
    extension in the 2026-07-28 era only (never in the handshake era, where it is not defined). toolproof
    sends its requests as built and follows the tasks itself, so the claim's resolver is never run."""

    identifier = TASKS_EXTENSION

    def claims(self) -> Sequence[ResultClaim[Any]]:
        return (
            ResultClaim(
                result_type=TASK_RESULT,
                model=_CreatedTask,
                resolve=_not_through_the_sdk,
                protocol_versions=frozenset(MODERN_PROTOCOL_VERSIONS),
            ),
        )


class TaskPeer(Protocol):
    """What following a task needs of the session: send a tasks/* request (routed by its taskId), and the
    mocks' answer to one input request."""

    async def task_request(self, method: str, params: dict[str, Any]) -> dict[str, Any]: ...

    async def answer_input(self, key: str, request: types.InputRequest) -> dict[str, Any]: ...


def is_task(result: dict[str, Any]) -> bool:
    return result.get("resultType") == TASK_RESULT


class TaskFollower:
    """One task followed to a terminal status: `run()` returns the tool's result (empty unless the task
    completed) and its record; `record()` is the record so far (of a task still running when the case timed
    out). `started` is when the call was sent (`time.perf_counter()`), `during` names the call in messages."""

    def __init__(
        self, peer: TaskPeer, created: dict[str, Any], options: TaskOptions, started: float, during: str
    ) -> None:
        self.peer, self.options, self.started, self.during = peer, options, started, during
        self.created_at = time.perf_counter()
        self.task = _checked(created, None, "the CreateTaskResult", detailed=False)
        self.task_id = str(self.task["taskId"])
        self.states = [str(self.task["status"])]
        self.polls = self.updates = 0
        self.cancel_sent = False
        self.answered: set[str] = set()

    @property
    def status(self) -> str:
        return str(self.task["status"])

    def record(self) -> TaskRecord:
        message = self.task.get("statusMessage")
        error = self.task.get("error") if self.status == "failed" else None
        return TaskRecord(
            task_id=self.task_id, states=list(self.states), status=self.status,
            status_message=message if isinstance(message, str) else None,
            error=error if isinstance(error, dict) else None, polls=self.polls, updates=self.updates,
            cancel_sent=self.cancel_sent, duration_s=time.perf_counter() - self.started,
        )

    def _cancel_due(self) -> float | None:
        """Seconds until `tasks/cancel` is due (0: now), or None when it is not to be sent."""
        if self.cancel_sent:
            return None
        due: list[float] = []
        if self.options.cancel_after_polls is not None and self.polls >= self.options.cancel_after_polls:
            due.append(0.0)
        if self.options.cancel_after_ms is not None:
            since = time.perf_counter() - self.created_at
            due.append(max(0.0, self.options.cancel_after_ms / 1000 - since))
        return min(due) if due else None

    def _interval(self) -> float:
        interval = self.task.get("pollIntervalMs")
        if isinstance(interval, int | float) and not isinstance(interval, bool) and interval >= 0:
            return max(MIN_POLL_S, interval / 1000)
        return DEFAULT_POLL_S

    async def _answer_inputs(self) -> None:
        """tasks/update with the mocks' answers to the input requests not answered yet."""
        asked = INPUT_REQUESTS.validate_python(self.task.get("inputRequests") or {})
        fresh = {key: request for key, request in asked.items() if key not in self.answered}
        if not fresh:
            return
        responses = {key: await self.peer.answer_input(key, request) for key, request in fresh.items()}
        await self.peer.task_request("tasks/update", {"taskId": self.task_id, "inputResponses": responses})
        self.answered.update(fresh)
        self.updates += 1

    async def _cancel_if_due(self) -> None:
        due = self._cancel_due()
        if due is not None and due <= 0:
            await self.peer.task_request("tasks/cancel", {"taskId": self.task_id})
            self.cancel_sent = True

    def _wait(self) -> float:
        """Seconds until the next poll: the task's interval, shortened when `tasks/cancel` is due sooner."""
        due = self._cancel_due()
        return self._interval() if due is None else min(self._interval(), due)

    async def run(self) -> tuple[dict[str, Any], TaskRecord]:
        """Poll to a terminal status. Raises `RequestFailed` (a timeout) when the task is still running after
        `max_polls` polls (after cancelling it), RuntimeError when the server sends something that is not a
        task."""
        while self.status not in TERMINAL:
            if self.status == "input_required":
                await self._answer_inputs()
            await self._cancel_if_due()
            if self.polls >= self.options.max_polls:
                await self._give_up()
            await anyio.sleep(self._wait())
            await self._cancel_if_due()
            answer = await self.peer.task_request("tasks/get", {"taskId": self.task_id})
            self.task = _checked(answer, self.task_id, "tasks/get")
            self.polls += 1
            if self.states[-1] != self.status:
                self.states.append(self.status)
        result = self.task.get("result") if self.status == "completed" else None
        return dict(result or {}), self.record()

    async def _give_up(self) -> None:
        """Cancel the task (a courtesy: what the server answers does not matter) and raise the timeout."""
        with anyio.move_on_after(self._interval() + 1), suppress(Exception):
            await self.peer.task_request("tasks/cancel", {"taskId": self.task_id})
        raise RequestFailed(self._unfinished())

    def _unfinished(self) -> Failure:
        seen = " -> ".join(self.states)
        message = (
            f"{self.during}: the task {self.task_id} was still {self.status} after {self.polls} polls of "
            f"tasks/get (task.max_polls: {self.options.max_polls}); states seen: {seen}"
        )
        details = {"task": self.record().model_dump()}
        return Failure(kind=FailureKind.TIMEOUT, message=message, details=details)


def _checked(
    task: dict[str, Any], task_id: str | None, during: str, *, detailed: bool = True
) -> dict[str, Any]:
    """`task` when it is a task as the extension defines it (the `task_id` asked for, a known status, and when
    `detailed` (tasks/get; a CreateTaskResult carries none) the field its status requires); RuntimeError
    naming what is wrong otherwise."""
    if not isinstance(task.get("taskId"), str):
        raise RuntimeError(f"{during}: the task has no taskId string (taskId: {task.get('taskId')!r})")
    if task_id is not None and task["taskId"] != task_id:
        raise RuntimeError(f"{during}: the task has taskId {task['taskId']!r}, expected {task_id!r}")
    status = task.get("status")
    if status not in STATUSES:
        raise RuntimeError(f"{during}: task {task['taskId']}: unknown status {status!r}")
    needed = {"completed": "result", "failed": "error", "input_required": "inputRequests"}.get(str(status))
    if detailed and needed is not None and not isinstance(task.get(needed), dict):
        raise RuntimeError(f"{during}: task {task['taskId']} is {status} without a {needed} object")
    return task


def unfinished_failure(record: TaskRecord, during: str) -> Failure:
    """The failure of a call whose task did not complete (a call outside an `assert` block's expectations)."""
    if record.status == "failed":
        error = record.error or {}
        message = (
            f"{during}: the task {record.task_id} failed with JSON-RPC error {error.get('code')}: "
            f"{error.get('message')}"
        )
        return Failure(kind=FailureKind.RPC_ERROR, message=message, details={"during": during, **error})
    why = f" ({record.status_message})" if record.status_message else ""
    message = f"{during}: the task {record.task_id} was {record.status}{why}"
    return Failure(kind=FailureKind.RPC_ERROR, message=message, details={"during": during})

