"""The official suite's extension fixtures for reference_server.py: tasks (SEP-2663) and skills (SEP-2640).

Tasks: a client that declares io.modelcontextprotocol/tasks in a request's capabilities gets a task
(`resultType: "task"`) from

  slow_compute(seconds, label)  working for `seconds`, then completed (a sync result without the extension)
  failing_job()                 completed after 50 ms with an isError result
  protocol_error_job()          failed after 50 ms with a JSON-RPC error
  confirm_delete(filename)      input_required at once (one elicitation); completed once answered
  multi_input()                 input_required with two elicitations; completed once both are answered
  test_tool_with_task()         first an input_required result (SEP-2322) asking for user_name; the retry
                                carrying the answer gets a task whose result names the user

and every one of them but slow_compute is refused with -32021 without the extension. tasks/get, tasks/update
and tasks/cancel drive them (-32021 for a client that did not declare the extension, -32602 for a task that
does not exist, -32020 when the Mcp-Name header is not the taskId). greet(name) never makes a task.

Skills: examples/servers/skills_server.py's.

`register(server)` adds the tools; `EXTENSIONS` go to the server's constructor.
"""

from __future__ import annotations

import secrets
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
from mcp.server import MCPServer
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolRequestParams

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "servers"))
from jobs_server import (
    TaskParams,
    TasksExtension,
    UpdateParams,
    declares_tasks,
    tasks_required,
    text_result,
)
from skills_server import Skills

TASKS = "io.modelcontextprotocol/tasks"
SKILLS_EXTENSION = Skills.identifier
HEADER_MISMATCH = -32020
MISSING_CLIENT_CAPABILITY = -32021
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
TTL_MS = 600_000
POLL_INTERVAL_MS = 20
JOB_S = 0.05
TERMINAL = ("completed", "failed", "cancelled")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _elicit(message: str, field_name: str, kind: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": {field_name: {"type": kind}}, "required": [field_name]}
    return {
        "method": "elicitation/create",
        "params": {"mode": "form", "message": message, "requestedSchema": schema},
    }


@dataclass
class Task:
    """One task: its status, when its work is done (`due`, monotonic seconds) and what it ends with then
    (`result`, or the JSON-RPC `error`); `waiting` holds the input requests not answered yet, and `then` what
    the answers set going once every one is in."""

    task_id: str
    due: float = float("inf")
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    status: str = "working"
    waiting: dict[str, Any] = field(default_factory=dict)
    answers: dict[str, Any] = field(default_factory=dict)
    then: Callable[[Task], None] | None = None
    created: str = field(default_factory=_now)
    updated: str = field(default_factory=_now)

    def move(self, status: str) -> None:
        self.status, self.updated = status, _now()

    def advance(self) -> None:
        if self.status == "working" and time.monotonic() >= self.due:
            self.move("failed" if self.error is not None else "completed")

    def wire(self) -> dict[str, Any]:
        """The task as CreateTaskResult and tasks/get carry it (tasks/get adds the status's payload)."""
        return {
            "taskId": self.task_id, "status": self.status, "createdAt": self.created,
            "lastUpdatedAt": self.updated, "ttlMs": TTL_MS, "pollIntervalMs": POLL_INTERVAL_MS,
        }  # fmt: skip

    def detailed(self) -> dict[str, Any]:
        task = self.wire()
        if self.status == "input_required":
            task["inputRequests"] = dict(self.waiting)
        elif self.status == "completed":
            task["result"] = self.result
        elif self.status == "failed":
            task["error"] = self.error
        return task


def _after(seconds: float, result: dict[str, Any]) -> Callable[[Task], None]:
    def finish(task: Task) -> None:
        task.due, task.result = time.monotonic() + seconds, result
        task.move("working")

    return finish


def _slow_compute(task: Task, arguments: dict[str, Any]) -> None:
    seconds = float(arguments.get("seconds", 1))
    _after(seconds, text_result(f"computed {arguments.get('label', '')} in {seconds:g} s"))(task)


def _failing_job(task: Task, arguments: dict[str, Any]) -> None:
    _after(JOB_S, text_result("failing_job failed, as it always does", is_error=True))(task)


def _protocol_error_job(task: Task, arguments: dict[str, Any]) -> None:
    task.due, task.error = time.monotonic() + JOB_S, {"code": INTERNAL_ERROR, "message": "the worker crashed"}


def _asking(task: Task, requests: dict[str, Any], then: Callable[[Task], None]) -> None:
    task.waiting, task.then = requests, then
    task.move("input_required")


def _confirm_delete(task: Task, arguments: dict[str, Any]) -> None:
    filename = str(arguments.get("filename", ""))
    ask = {f"confirm-{task.task_id}": _elicit(f"Delete {filename}?", "confirm", "boolean")}
    _asking(task, ask, _after(JOB_S, text_result(f"Deleted {filename}")))


def _multi_input(task: Task, arguments: dict[str, Any]) -> None:
    asks = {f"{key}-{task.task_id}": _elicit(f"Your {key}?", key, "string") for key in ("name", "confirm")}
    _asking(task, asks, _after(JOB_S, text_result("both inputs received")))


STARTS: dict[str, Callable[[Task, dict[str, Any]], None]] = {
    "slow_compute": _slow_compute,
    "failing_job": _failing_job,
    "protocol_error_job": _protocol_error_job,
    "confirm_delete": _confirm_delete,
    "multi_input": _multi_input,
}
NEEDS_TASK = frozenset({*STARTS, "test_tool_with_task"} - {"slow_compute"})
USER_NAME = "user_name"


class Tasks(TasksExtension):
    """The tasks extension (its methods as jobs_server.py binds them) over the fixtures above."""

    tasks: dict[str, Task]  # type: ignore[assignment]  # this module's tasks

    def _new(self) -> Task:
        task = Task(task_id=secrets.token_urlsafe(12))
        self.tasks[task.task_id] = task
        return task

    async def intercept_tool_call(
        self, params: CallToolRequestParams, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if params.name not in STARTS and params.name != "test_tool_with_task":
            return await call_next(ctx)
        if not declares_tasks(ctx):
            if params.name in NEEDS_TASK:
                raise tasks_required(f"{params.name} runs only as a task")
            return await call_next(ctx)
        if params.name == "test_tool_with_task":
            return self._composed(ctx)
        return {"resultType": "task", **self.start(params).wire()}

    def start(self, params: CallToolRequestParams) -> Task:
        """A new task running the tool `params` call."""
        task = self._new()
        STARTS[params.name](task, dict(params.arguments or {}))
        return task

    def _composed(self, ctx: ServerRequestContext[Any, Any]) -> HandlerResult:
        """Round 1 asks for the user's name (input_required); the retry that answers it gets a task."""
        answered = ((ctx.params or {}).get("inputResponses") or {}).get(USER_NAME)
        if not isinstance(answered, dict):
            ask = {USER_NAME: _elicit("What is your name?", "name", "string")}
            return {"resultType": "input_required", "inputRequests": ask}
        name = str((answered.get("content") or {}).get("name", ""))
        task = self._new()
        _after(JOB_S, text_result(f"Hello, {name}! (gathered before the task)"))(task)
        return {"resultType": "task", **task.wire()}

    def _task(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> Task:
        """The task `params` names, for a client that declared the extension (`gate`); over HTTP the Mcp-Name
        header, when sent, must be its taskId (`route`)."""
        self.gate(ctx)
        self.route(ctx, params)
        task = self.tasks.get(params.task_id)
        if task is None:
            raise MCPError(code=INVALID_PARAMS, message=f"no task {params.task_id!r}")
        return task

    def gate(self, ctx: ServerRequestContext[Any, Any]) -> None:
        if not declares_tasks(ctx):
            raise tasks_required(f"{TASKS} was not declared")

    def route(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> None:
        headers = getattr(ctx.request, "headers", None)
        named = headers.get("mcp-name") if headers is not None else None
        if named is not None and named != params.task_id:
            message = f"the Mcp-Name header ({named!r}) is not the taskId ({params.task_id!r})"
            raise MCPError(code=HEADER_MISMATCH, message=message)

    async def get(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> HandlerResult:
        task = self._task(ctx, params)
        task.advance()
        return task.detailed()

    async def update(self, ctx: ServerRequestContext[Any, Any], params: UpdateParams) -> HandlerResult:
        task = self._task(ctx, params)
        for key, response in params.input_responses.items():
            if key in task.waiting:  # unknown or answered keys are ignored
                del task.waiting[key]
                task.answers[key] = response
        if task.status == "input_required" and not task.waiting and task.then is not None:
            task.then(task)
        return {}

    async def cancel(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> HandlerResult:
        task = self._task(ctx, params)
        task.advance()
        if task.status not in TERMINAL:
            task.waiting = {}
            task.move("cancelled")
        return {}


EXTENSIONS: list[Extension] = [Tasks(), Skills()]
"""The extensions reference_server.py's MCPServer is built with."""


def register(server: MCPServer[Any]) -> None:
    """Add the tasks fixtures' tools to `server` (the extension answers most calls before they run)."""

    @server.tool(description="Greets by name (never a task)")
    def greet(name: str) -> str:
        return f"Hello, {name}!"

    @server.tool(description="Sleeps `seconds`, then returns (a task for a client that declares tasks)")
    async def slow_compute(seconds: float = 1, label: str = "") -> str:
        await anyio.sleep(seconds)
        return f"computed {label} in {seconds:g} s"

    for name, description in (
        ("failing_job", "A task whose tool reports an error (isError)"),
        ("protocol_error_job", "A task that fails with a JSON-RPC error"),
        ("multi_input", "A task that asks for two inputs at once"),
        ("test_tool_with_task", "Asks for the user's name (input_required), then runs as a task"),
    ):
        server.add_tool(_answered_by_the_extension, name=name, description=description)

    @server.tool(description="Deletes `filename` once the user confirms (a task only)")
    def confirm_delete(filename: str) -> str:
        return _answered_by_the_extension()


def _answered_by_the_extension() -> str:
    raise MCPError(code=MISSING_CLIENT_CAPABILITY, message="runs only as a task")
