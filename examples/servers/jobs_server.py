"""jobs: a 2026-07-28 MCP server whose long tools answer with tasks (the io.modelcontextprotocol/tasks
extension), written with the official SDK's MCPServer; the SDK does not serve tasks, so the small task
layer here (`TasksExtension`) does: it turns a tools/call into a task, and serves tasks/get, tasks/update
and tasks/cancel.

A client that declares the extension in a request's capabilities gets a task (`resultType: "task"`) for:

  build_report(pages)     working for pages x 100 ms, then completed with the report
  approve_deploy(service) input_required at once (an elicitation asking to confirm); once answered by
                          tasks/update, working for 100 ms, then completed (isError when not confirmed)
  flaky_job()             working for 200 ms, then failed with a JSON-RPC error
  endless()               working for ever; tasks/cancel makes it cancelled

A client that does not declare it gets build_report's and flaky_job's answer at once, and error -32021
(missing required client capability) from approve_deploy and endless, which cannot run without a task.
greet(name) never makes a task. tasks/get, tasks/update and tasks/cancel answer -32021 to a client that
does not declare the extension. Over HTTP, a tasks/* request whose Mcp-Name header is not its taskId is
refused with -32020 (header mismatch). It serves both eras; run it over stdio (the default), or
`--transport streamable-http --port 8000`.
"""

from __future__ import annotations

import argparse
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

import anyio
from mcp.server import MCPServer
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolRequestParams, RequestParams
from pydantic import ConfigDict, Field

TASKS = "io.modelcontextprotocol/tasks"
CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
HEADER_MISMATCH = -32020
MISSING_CLIENT_CAPABILITY = -32021
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
POLL_INTERVAL_MS = 50
TTL_MS = 600_000
PAGE_S = 0.1
Status = Literal["working", "input_required", "completed", "failed", "cancelled"]
TERMINAL = ("completed", "failed", "cancelled")


def text_result(text: str, *, is_error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


def report(pages: int) -> str:
    return f"Report ready: {pages} pages"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class Task:
    """One task: its status, when its work is done (`due`, monotonic seconds; None: not scheduled), and
    what it ends with then (`finish` gives the result, or `error` the JSON-RPC error). `shown`: whether a
    tasks/get has shown the status it is in, which it always does before leaving it, so the states a client
    sees do not depend on how fast it polls."""

    task_id: str
    status: Status = "working"
    message: str = ""
    due: float | None = None
    finish: Callable[[], dict[str, Any]] | None = None
    error: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    input_requests: dict[str, Any] = field(default_factory=dict)
    on_answer: Callable[[Task, dict[str, Any]], None] | None = None
    created: str = field(default_factory=_now)
    updated: str = field(default_factory=_now)
    shown: bool = False

    def set(self, status: Status, message: str) -> None:
        self.status, self.message, self.updated, self.shown = status, message, _now(), False

    def advance(self) -> None:
        """Finish the work that is due by now, once a tasks/get has shown the task working."""
        if self.status != "working" or self.due is None or time.monotonic() < self.due or not self.shown:
            self.shown = True
            return
        if self.error is not None:
            self.set("failed", self.error["message"])
        elif self.finish is not None:
            self.result = self.finish()
            self.set("completed", "done")

    def wire(self) -> dict[str, Any]:
        """The task as the tools/call that creates it answers (no payload: that is for tasks/get)."""
        task: dict[str, Any] = {
            "taskId": self.task_id, "status": self.status, "createdAt": self.created,
            "lastUpdatedAt": self.updated, "ttlMs": TTL_MS, "pollIntervalMs": POLL_INTERVAL_MS,
        }
        if self.message:
            task["statusMessage"] = self.message
        return task

    def detailed(self) -> dict[str, Any]:
        """The task as tasks/get carries it: with its status's payload (input requests, result or error)."""
        task = self.wire()
        if self.status == "input_required":
            task["inputRequests"] = self.input_requests
        if self.status == "completed":
            task["result"] = self.result
        if self.status == "failed":
            task["error"] = self.error
        return task


def _after(seconds: float) -> float:
    return time.monotonic() + seconds


def _build_report(task: Task, arguments: dict[str, Any]) -> None:
    pages = int(arguments.get("pages", 3))
    task.set("working", f"writing {pages} pages")
    task.due, task.finish = _after(pages * PAGE_S), lambda: text_result(report(pages))


def _approve_deploy(task: Task, arguments: dict[str, Any]) -> None:
    service = str(arguments.get("service", ""))
    schema = {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}
    ask = {"mode": "form", "message": f"Deploy {service}?", "requestedSchema": schema}
    task.input_requests = {"confirm-deploy": {"method": "elicitation/create", "params": ask}}
    task.set("input_required", f"waiting for approval to deploy {service}")

    def answered(task: Task, response: dict[str, Any]) -> None:
        confirmed = response.get("action") == "accept" and (response.get("content") or {}).get("confirm")
        outcome = text_result(f"Deployed {service}") if confirmed else text_result(
            f"deploy of {service} not approved", is_error=True
        )
        task.set("working", f"deploying {service}")
        task.due, task.finish = _after(PAGE_S), lambda: outcome

    task.on_answer = answered


def _flaky_job(task: Task, arguments: dict[str, Any]) -> None:
    task.due = _after(2 * PAGE_S)
    task.error = {"code": INTERNAL_ERROR, "message": "the worker running flaky_job crashed"}


def _endless(task: Task, arguments: dict[str, Any]) -> None:
    task.set("working", "waiting for something that never happens")


STARTS: dict[str, Callable[[Task, dict[str, Any]], None]] = {
    "build_report": _build_report,
    "approve_deploy": _approve_deploy,
    "flaky_job": _flaky_job,
    "endless": _endless,
}
"""The tools answered with a task, and how each task starts."""

NEEDS_TASK = frozenset({"approve_deploy", "endless"})
"""The tools that cannot answer without a task."""


class TaskParams(RequestParams):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    task_id: str = Field(alias="taskId")


class UpdateParams(TaskParams):
    input_responses: dict[str, Any] = Field(alias="inputResponses", default_factory=dict)


class TasksExtension(Extension):
    """The tasks extension: tools/call of a task tool makes a task when the request's capabilities declare
    the extension; tasks/get, tasks/update and tasks/cancel read and drive it."""

    identifier = TASKS

    def __init__(self) -> None:
        self.tasks: dict[str, Task] = {}

    def methods(self) -> Sequence[MethodBinding]:
        return (
            MethodBinding("tasks/get", TaskParams, self.get),
            MethodBinding("tasks/update", UpdateParams, self.update),
            MethodBinding("tasks/cancel", TaskParams, self.cancel),
        )

    async def intercept_tool_call(
        self, params: CallToolRequestParams, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        start = STARTS.get(params.name)
        if start is None:
            return await call_next(ctx)
        if not declares_tasks(ctx):
            if params.name in NEEDS_TASK:
                raise tasks_required(f"{params.name} runs only as a task")
            return await call_next(ctx)
        task = Task(task_id=secrets.token_urlsafe(16))
        start(task, dict(params.arguments or {}))
        self.tasks[task.task_id] = task
        return {"resultType": "task", **task.wire()}

    def _task(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> Task:
        """The task `params` names, for a client that declared the extension (else -32021); over HTTP its id
        must also be the request's Mcp-Name header."""
        if not declares_tasks(ctx):
            raise tasks_required(f"{TASKS} was not declared")
        headers = getattr(ctx.request, "headers", None)
        if headers is not None and headers.get("mcp-name") != params.task_id:
            said = headers.get("mcp-name")
            message = f"the Mcp-Name header ({said!r}) is not the taskId ({params.task_id!r})"
            raise MCPError(code=HEADER_MISMATCH, message=message)
        task = self.tasks.get(params.task_id)
        if task is None:
            raise MCPError(code=INVALID_PARAMS, message=f"no task {params.task_id!r}")
        return task

    async def get(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> HandlerResult:
        task = self._task(ctx, params)
        task.advance()
        return task.detailed()

    async def update(self, ctx: ServerRequestContext[Any, Any], params: UpdateParams) -> HandlerResult:
        task = self._task(ctx, params)
        for key, response in params.input_responses.items():
            if task.status == "input_required" and key in task.input_requests and task.on_answer:
                task.input_requests = {}
                task.on_answer(task, response)
        return {}

    async def cancel(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> HandlerResult:
        task = self._task(ctx, params)
        task.advance()
        if task.status not in TERMINAL:
            task.set("cancelled", "cancelled by the client")
        return {}


def declares_tasks(ctx: ServerRequestContext[Any, Any]) -> bool:
    """Whether this request's capabilities (its `_meta`) declare the tasks extension."""
    meta = (ctx.params or {}).get("_meta") or {}
    capabilities = meta.get(CLIENT_CAPABILITIES) or {}
    return TASKS in (capabilities.get("extensions") or {})


def tasks_required(message: str) -> MCPError:
    """The -32021 error for a request that needs the tasks extension the client did not declare."""
    data = {"requiredCapabilities": {"extensions": {TASKS: {}}}}
    return MCPError(code=MISSING_CLIENT_CAPABILITY, message=message, data=data)


server = MCPServer("jobs", version="1.0.0", instructions="Runs long jobs as tasks.", log_level="WARNING",
                   extensions=[TasksExtension()])


@server.tool()
def greet(name: str) -> str:
    """Says hello at once (never a task)."""
    return f"Hello, {name}!"


@server.tool()
async def build_report(pages: int = 3) -> str:
    """Writes a report of `pages` pages (100 ms a page); a task for a client that declares tasks."""
    await anyio.sleep(pages * PAGE_S)
    return report(pages)


@server.tool()
def approve_deploy(service: str) -> str:
    """Deploys `service` once the user approves (a task only: the approval is asked for by the task)."""
    raise AssertionError("answered by the task layer")  # pragma: no cover - the extension answers first


@server.tool()
async def flaky_job() -> str:
    """A job whose worker crashes after 200 ms (a failed task, or a JSON-RPC error without tasks)."""
    await anyio.sleep(2 * PAGE_S)
    raise MCPError(code=INTERNAL_ERROR, message="the worker running flaky_job crashed")


@server.tool()
def endless() -> str:
    """A job that never finishes (a task only); cancel it with tasks/cancel."""
    raise AssertionError("answered by the task layer")  # pragma: no cover - the extension answers first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transport", choices=["stdio", "streamable-http"], default="stdio")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    options = parser.parse_args()
    if options.transport == "stdio":
        server.run()
    else:
        server.run(options.transport, host=options.host, port=options.port)


if __name__ == "__main__":
    main()
