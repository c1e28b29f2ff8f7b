"""An MCP stdio server (2026-07-28, the official SDK's MCPServer) whose tasks break the tasks extension on
purpose: every tool answers with a task, whatever the client declared, and its first tasks/get is wrong:

  no_id           its CreateTaskResult has no taskId (so no tasks/get at all)
  wrong_id        a task with another taskId
  unknown_status  status "paused"
  no_result       completed without a result
  bad_input       input_required with an input request of no known method
  slow_poll       asks to be polled once an hour (pollIntervalMs 3600000), and never ends
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcp.server import MCPServer
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp_types import CallToolRequestParams, RequestParams
from pydantic import ConfigDict, Field

TASK = {"status": "working", "createdAt": "2026-07-28T00:00:00Z", "lastUpdatedAt": "2026-07-28T00:00:00Z",
        "ttlMs": None, "pollIntervalMs": 10}
FIRST_POLL: dict[str, dict[str, Any]] = {
    "wrong_id": {"taskId": "someone-else"},
    "unknown_status": {"status": "paused"},
    "no_result": {"status": "completed"},
    "bad_input": {"status": "input_required", "inputRequests": {"k": {"method": "nonsense", "params": {}}}},
    "slow_poll": {"pollIntervalMs": 3_600_000},
}


class TaskParams(RequestParams):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    task_id: str = Field(alias="taskId")


class BadTasks(Extension):
    identifier = "io.modelcontextprotocol/tasks"

    def methods(self) -> Sequence[MethodBinding]:
        return (
            MethodBinding("tasks/get", TaskParams, self.get),
            MethodBinding("tasks/cancel", TaskParams, self.ack),
        )

    async def intercept_tool_call(
        self, params: CallToolRequestParams, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if params.name == "no_id":
            return {"resultType": "task", **TASK}
        slow = FIRST_POLL["slow_poll"] if params.name == "slow_poll" else {}
        return {"resultType": "task", "taskId": params.name, **TASK, **slow}

    async def get(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> HandlerResult:
        return {"taskId": params.task_id, **TASK, **FIRST_POLL[params.task_id]}

    async def ack(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> HandlerResult:
        return {}


server = MCPServer("bad-tasks", version="1.0.0", log_level="WARNING", extensions=[BadTasks()])

for tool in [*FIRST_POLL, "no_id"]:
    server.add_tool(lambda: "never called: every call is answered with a task", name=tool)

if __name__ == "__main__":
    server.run()
