"""The one door to the SDK's private modules: the stream types a transport yields are not exported by a
public `mcp` module, so they are imported here and nowhere else. If an SDK release moves them, importing
this module fails, and `tests/unit/mcp/test_sdk_private.py` names what moved."""

from __future__ import annotations

from mcp.client._transport import ReadStream, TransportStreams, WriteStream

PRIVATE_MODULES = ("mcp.client._transport",)

__all__ = ["PRIVATE_MODULES", "ReadStream", "TransportStreams", "WriteStream"]
