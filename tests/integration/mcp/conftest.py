"""Fixtures for the MCP client tests: HTTP servers on free loopback ports."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator

import pytest
from tests.integration.mcp.helpers import NOTES, ROOT, free_port, stop, wait_for_port

from toolproof.mcp.spec import ConnectSpec
from toolproof.model.server_config import Transport


@pytest.fixture(scope="session")
def http_server() -> Iterator[Callable[[list[str], str], str]]:
    """Start `command... --port N` on a free loopback port (once per command) and return `base + path`.

    Call it with the command (a list, without the port flag) and the URL path; the servers stop at the
    end of the test session.
    """
    started: dict[tuple[str, ...], tuple[subprocess.Popen[bytes], int]] = {}

    def start(command: list[str], path: str) -> str:
        key = tuple(command)
        if key not in started:
            port = free_port()
            process = subprocess.Popen(
                [*command, "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            started[key] = (process, port)
            wait_for_port(port, process)
        return f"http://127.0.0.1:{started[key][1]}{path}"

    yield start
    for process, _ in started.values():
        stop(process)


@pytest.fixture(scope="session")
def notes_http(http_server: Callable[[list[str], str], str]) -> ConnectSpec:
    """notes_server over Streamable HTTP."""
    url = http_server([sys.executable, str(NOTES), "--transport", "streamable-http"], "/mcp")
    return ConnectSpec(transport=Transport.HTTP, url=url)


@pytest.fixture(scope="session")
def notes_sse(http_server: Callable[[list[str], str], str]) -> ConnectSpec:
    """notes_server over the legacy SSE transport."""
    url = http_server([sys.executable, str(NOTES), "--transport", "sse"], "/sse")
    return ConnectSpec(transport=Transport.SSE, url=url)


@pytest.fixture(scope="session")
def travel_http_url(http_server: Callable[[list[str], str], str]) -> str:
    """The URL of travel_server (both protocol eras) over Streamable HTTP."""
    return http_server([sys.executable, str(ROOT / "examples/servers/travel_server.py"), "--transport",
                        "streamable-http"], "/mcp")
