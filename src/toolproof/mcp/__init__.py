"""The client side of MCP: start or reach a server, talk to it over the official SDK, see everything."""

from toolproof.mcp.errors import RequestFailed, classify
from toolproof.mcp.process import reap_strays
from toolproof.mcp.session import Session, open_session
from toolproof.mcp.spec import ConnectSpec, Mocks

__all__ = ["ConnectSpec", "Mocks", "RequestFailed", "Session", "classify", "open_session", "reap_strays"]
