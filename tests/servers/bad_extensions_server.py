"""bad-extensions: reference_server.py's tasks and skills fixtures (reference_extensions.py) on the official
SDK, each mode breaking one rule of the tasks (SEP-2663) or skills (SEP-2640) extension; `conforming` breaks
none. Over HTTP every mode is served at once (`--port PORT`: http://127.0.0.1:PORT/MODE/mcp), or one mode
over stdio (`bad_extensions_server.py MODE`)."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import anyio
import uvicorn
from mcp.server import MCPServer
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import MethodBinding, ResourceBinding
from mcp.server.mcpserver.resources import TextResource
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolRequestParams, PaginatedRequestParams
from reference_extensions import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    SKILLS_EXTENSION,
    TaskParams,
    Tasks,
    UpdateParams,
    declares_tasks,
    register,
)
from skills_server import CACHE_HINTS, Skills, UriParams
from starlette.applications import Starlette
from starlette.routing import Mount

BREAKS = {
    "ungated-tasks": "serves tasks/* to a client that did not declare the extension",
    "unknown-task": "answers tasks/get for a task it does not have with -32603",
    "tasks-list": "still serves the removed tasks/list",
    "legacy-fields": "names ttlMs and pollIntervalMs ttl and pollInterval in CreateTaskResult",
    "request-state": "puts a requestState in tasks/get",
    "empty-result": "completes tasks with a result without content",
    "eager-tasks": "makes a task of slow_compute for a client without the extension",
    "update-envelope": "acks tasks/update with the task",
    "leaked-state": "carries the requestState of the input_required round into the task it leads to",
    "cancel-envelope": "acks tasks/cancel with the task",
    "unrouted": "ignores an Mcp-Name header unlike the taskId",
    "bad-notification": "sends notifications/tasks with a status no task has",
    "hung-task-call": "never answers slow_compute from a client that declares tasks (breaks no rule)",
    "undeclared-skills": "serves skills without declaring the extension",
    "skills-envelope": "wraps the skills settings in a config envelope",
    "no-list-hints": "answers skills/list without ttlMs and cacheScope",
    "incomplete-entry": "lists a skill whose resources leave out its SKILL.md",
    "unknown-skill": "answers skills/get for a skill it does not have with -32603",
    "no-get-hints": "answers skills/get without ttlMs and cacheScope",
    "frontmatter-drift": "lists a skill whose frontmatter has a field its SKILL.md lacks",
    "plain-manifest": "lists SKILL.md as text/plain (a SHOULD: a warning)",
    "flat-directory": "lists subdirectories of a skill as text/plain",
}
MODES = ("conforming", *BREAKS)


class BadTasks(Tasks):
    def __init__(self, mode: str) -> None:
        super().__init__()
        self.mode = mode

    def methods(self) -> Sequence[MethodBinding]:
        if self.mode != "tasks-list":
            return super().methods()
        return (*super().methods(), MethodBinding("tasks/list", PaginatedRequestParams, self.listed))

    async def listed(
        self, ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams
    ) -> HandlerResult:
        return {"tasks": [task.wire() for task in self.tasks.values()]}

    async def intercept_tool_call(
        self, params: CallToolRequestParams, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if self.mode == "hung-task-call" and params.name == "slow_compute" and declares_tasks(ctx):
            await anyio.sleep_forever()
        if self.mode == "eager-tasks" and params.name == "slow_compute" and not declares_tasks(ctx):
            task = self.start(params)
            return {"resultType": "task", **task.wire()}
        result = await super().intercept_tool_call(params, ctx, call_next)
        if not isinstance(result, dict):
            return result
        if self.mode == "legacy-fields" and result.get("resultType") == "task":
            result["ttl"], result["pollInterval"] = result.pop("ttlMs"), result.pop("pollIntervalMs")
        answered = "inputResponses" in (ctx.params or {})
        if self.mode == "leaked-state" and result.get("resultType") == "task" and answered:
            result["requestState"] = "round-1"
        return result

    def gate(self, ctx: ServerRequestContext[Any, Any]) -> None:
        if self.mode != "ungated-tasks":
            super().gate(ctx)

    def route(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> None:
        if self.mode != "unrouted":
            super().route(ctx, params)

    async def get(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> HandlerResult:
        try:
            task = await super().get(ctx, params)
        except MCPError as error:
            if self.mode == "unknown-task" and error.error.code == INVALID_PARAMS:
                raise MCPError(code=INTERNAL_ERROR, message="something went wrong") from error
            raise
        if isinstance(task, dict) and self.mode == "bad-notification":
            outbound = ctx.session._request_outbound  # the SDK sends only typed notifications of its own
            await outbound.notify("notifications/tasks", {"taskId": params.task_id, "status": "paused"})
        if isinstance(task, dict) and self.mode == "request-state":
            task["requestState"] = "opaque"
        if isinstance(task, dict) and self.mode == "empty-result" and task.get("status") == "completed":
            task["result"] = {"content": []}
        return task

    async def update(self, ctx: ServerRequestContext[Any, Any], params: UpdateParams) -> HandlerResult:
        ack = await super().update(ctx, params)
        return self._task(ctx, params).detailed() if self.mode == "update-envelope" else ack

    async def cancel(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> HandlerResult:
        ack = await super().cancel(ctx, params)
        return self._task(ctx, params).detailed() if self.mode == "cancel-envelope" else ack


class BadSkills(Skills):
    def __init__(self, mode: str) -> None:
        super().__init__()
        self.mode = mode

    def settings(self) -> dict[str, Any]:
        settings = super().settings()
        return {"config": settings} if self.mode == "skills-envelope" else settings

    def resources(self) -> Sequence[ResourceBinding]:
        bindings = list(super().resources())
        if self.mode != "plain-manifest":
            return bindings
        plain = []
        for binding in bindings:
            resource = binding.resource
            if str(resource.uri).endswith("/SKILL.md") and isinstance(resource, TextResource):
                resource = resource.model_copy(update={"mime_type": "text/plain"})
            plain.append(ResourceBinding(resource))
        return plain

    async def list_skills(self, ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams) -> Any:
        listed = await super().list_skills(ctx, params)
        if self.mode == "no-list-hints":
            return _unhinted(listed)
        first = listed["skills"][0]
        if self.mode == "incomplete-entry":
            first["resources"] = [item for item in first["resources"] if item["uri"] != first["uri"]]
        if self.mode == "frontmatter-drift":
            first["frontmatter"] = {**first["frontmatter"], "license": "MIT"}
        return listed

    async def get_skill(self, ctx: ServerRequestContext[Any, Any], params: UriParams) -> Any:
        try:
            got = await super().get_skill(ctx, params)
            return _unhinted(got) if self.mode == "no-get-hints" else got
        except MCPError as error:
            if self.mode == "unknown-skill":
                raise MCPError(code=INTERNAL_ERROR, message="something went wrong") from error
            raise

    async def read_directory(self, ctx: ServerRequestContext[Any, Any], params: Any) -> Any:
        children = await super().read_directory(ctx, params)
        if self.mode == "flat-directory":
            for child in children["resources"]:
                if child["mimeType"] == "inode/directory":
                    child["mimeType"] = "text/plain"
        return children


def _unhinted(result: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in result.items() if key not in CACHE_HINTS}


def build(mode: str) -> MCPServer[Any]:
    server = MCPServer(
        "bad-extensions", version="1.0.0", log_level="WARNING", extensions=[BadTasks(mode), BadSkills(mode)]
    )
    register(server)
    if mode == "undeclared-skills":
        server._lowlevel_server.extensions.pop(SKILLS_EXTENSION)
    return server


def serve_every_mode(port: int) -> None:
    apps = {mode: build(mode).streamable_http_app() for mode in MODES}

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            for app in apps.values():
                await stack.enter_async_context(app.router.lifespan_context(app))
            yield

    routes = [Mount(f"/{mode}", app=app) for mode, app in apps.items()]
    uvicorn.run(Starlette(routes=routes, lifespan=lifespan), host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--port"]:
        serve_every_mode(int(sys.argv[2]))
    else:
        build(sys.argv[1] if len(sys.argv) > 1 else "conforming").run()
