"""toolproof: prove that MCP servers and tool-using AI agents do what they should."""

__version__ = "0.1.0"
