"""The agent under test: agent_server.py on a free loopback port, with its own notes MCP server."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from tests.integration.mcp.helpers import listening

AGENT = Path(__file__).with_name("agent_server.py")
TOKEN = "tp-agent-token-5c1e9a"


@contextmanager
def running_agent() -> Iterator[str]:
    """`http://127.0.0.1:PORT` of an agent that wants `Authorization: Bearer TOKEN`, stopped on exit."""
    with listening([sys.executable, str(AGENT)], env={**os.environ, "AGENT_TOKEN": TOKEN}) as port:
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="session")
def agent_base() -> Iterator[str]:
    """`http://127.0.0.1:PORT` of a running agent, shared by the session's tests."""
    with running_agent() as base:
        yield base
