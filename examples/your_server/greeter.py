"""greeter: the smallest useful MCP server on the official Python SDK (`mcp` 2.x, whose `MCPServer` was
called FastMCP before), to copy when testing a server of your own."""

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("greeter")


@server.tool()
def greet(name: str) -> str:
    """Say hello to someone by name."""
    return f"Hello, {name}!"


@server.tool()
def divide(a: float, b: float) -> float:
    """Divide a by b; dividing by zero is a tool error."""
    if b == 0:
        raise ToolError("cannot divide by zero")
    return a / b


if __name__ == "__main__":
    server.run()  # stdio
