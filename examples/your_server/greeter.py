"""greeter: the smallest useful MCP server on the official Python SDK (`mcp` 2.x, whose `MCPServer` was
called FastMCP before), to copy when testing a server of your own. Each parameter gets its description (and
examples) from pydantic's `Field` inside `Annotated`: agents read them, and `toolproof lint` asks for them."""

from typing import Annotated

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

server = MCPServer("greeter")


@server.tool()
def greet(name: Annotated[str, Field(description="who to greet", examples=["Ada"])]) -> str:
    """Say hello to someone by name. Returns the greeting as text."""
    return f"Hello, {name}!"


@server.tool()
def divide(
    a: Annotated[float, Field(description="the dividend")],
    b: Annotated[float, Field(description="the divisor; zero is a tool error")],
) -> float:
    """Divide a by b. Returns the quotient; dividing by zero is a tool error."""
    if b == 0:
        raise ToolError("cannot divide by zero")
    return a / b


if __name__ == "__main__":
    server.run()  # stdio
