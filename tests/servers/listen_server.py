"""An MCP stdio server on the official SDK whose changes reach a 2026-07-28 client only over
`subscriptions/listen` (the 2026 era has no resources/subscribe and no standing stream); in the 2025-11-25
era the same changes go out as the handshake era's notifications.

  clock://now          a resource updated every 0.2 s while the server runs
  clock://frozen       a resource that never changes
  add_tool(name)       registers a tool and says the tool list changed
  touch(uri)           says the resource at `uri` was updated
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourceUpdated

TICK_S = 0.2
bus = InMemorySubscriptionBus()


@asynccontextmanager
async def ticking(server: MCPServer[Any]) -> AsyncIterator[None]:
    """Publish an update of clock://now every TICK_S while the server runs."""

    async def tick() -> None:
        while True:
            await anyio.sleep(TICK_S)
            await bus.publish(ResourceUpdated("clock://now"))

    async with anyio.create_task_group() as group:
        group.start_soon(tick)
        yield
        group.cancel_scope.cancel()


server = MCPServer("listen-server", version="1.0.0", subscriptions=bus, lifespan=ticking)


@server.resource("clock://now")
def now() -> str:
    return datetime.now(UTC).isoformat()


@server.resource("clock://frozen")
def frozen() -> str:
    return "1970-01-01T00:00:00+00:00"


@server.tool()
async def add_tool(name: str, ctx: Context) -> str:
    """Register a tool called `name` and tell listening clients the tool list changed."""
    server.add_tool(lambda: name, name=name, description=f"added by add_tool({name})")
    await ctx.notify_tools_changed()
    if ctx.protocol_version == "2025-11-25":
        await ctx.session.send_tool_list_changed()
    return f"added {name}"


@server.tool()
async def touch(uri: str, ctx: Context) -> str:
    """Tell listening clients the resource at `uri` was updated."""
    await ctx.notify_resource_updated(uri)
    if ctx.protocol_version == "2025-11-25":
        await ctx.session.send_resource_updated(uri)
    return f"touched {uri}"


if __name__ == "__main__":
    server.run()
