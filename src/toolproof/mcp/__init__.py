"""The client side of MCP: start or reach a server, talk to it over the official SDK, see everything.

The package imports nothing itself, so that its SDK-free parts (signals, process) load without the SDK."""
