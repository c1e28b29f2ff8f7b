"""Sources produce observations: a live MCP server, a recorded trajectory, later agents and HTTP targets."""
