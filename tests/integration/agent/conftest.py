"""Helpers for agent runs against real MCP servers: server specs, and a provider that keeps its requests."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from toolproof.mcp.spec import ConnectSpec
from toolproof.model.server_config import Transport
from toolproof.providers.base import ModelReply, ModelRequest, Provider

ROOT = Path(__file__).resolve().parents[3]
NOTES = ROOT / "examples" / "servers" / "notes_server.py"


def notes_spec() -> ConnectSpec:
    """The example notes server over stdio."""
    return ConnectSpec(
        transport=Transport.STDIO, command=sys.executable, args=(str(NOTES),), env=dict(os.environ)
    )


def everything_spec() -> ConnectSpec:
    """The reference `everything` server (npm) over stdio."""
    return ConnectSpec(transport=Transport.STDIO, command="mcp-server-everything", env=dict(os.environ))


@dataclass
class Listening:
    """A provider wrapper that keeps every request, so tests can see what the model was shown."""

    inner: Provider
    name: str = "listening"
    requests: list[ModelRequest] = field(default_factory=list)

    async def complete(self, request: ModelRequest) -> ModelReply:
        self.requests.append(request)
        return await self.inner.complete(request)
