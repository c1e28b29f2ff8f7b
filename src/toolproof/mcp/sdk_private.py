"""The one door to the SDK's private parts: the stream types a transport yields are not exported by a
public `mcp` module, so they are imported here and nowhere else; the session's table of `x-mcp-header`
parameters is filled only by the SDK's own typed tools/list, so a listing made as sent is handed to it
here. If an SDK release moves them, `tests/unit/mcp/test_sdk_private.py` names what moved."""

from __future__ import annotations

from mcp.client._transport import ReadStream, TransportStreams, WriteStream
from mcp.client.session import ClientSession

PRIVATE_MODULES = ("mcp.client._transport",)
HEADER_TABLE = "_x_mcp_header_maps"
"""The `ClientSession` attribute its modern-era stamp reads a called tool's `Mcp-Param-*` parameters from."""

__all__ = [
    "HEADER_TABLE",
    "PRIVATE_MODULES",
    "ReadStream",
    "TransportStreams",
    "WriteStream",
    "mirror_tool_headers",
]


def mirror_tool_headers(session: ClientSession, tool: str, header_map: dict[tuple[str, ...], str]) -> None:
    """Make `session` mirror `tool`'s `x-mcp-header` parameters (property path -> header name) into
    `Mcp-Param-*` headers on each call of it."""
    getattr(session, HEADER_TABLE)[tool] = header_map
