"""Agent runs: the loop that lets a model use MCP tools, the tool hosts it calls, cassettes."""
