"""Helpers for the MCP client tests: specs for our example and misbehaving servers, process checks, ports."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from toolproof.mcp.spec import ConnectSpec
from toolproof.model.server_config import Transport

ROOT = Path(__file__).resolve().parents[3]
TINY = ROOT / "examples" / "servers" / "tiny_server.py"
NOTES = ROOT / "examples" / "servers" / "notes_server.py"
MISBEHAVING = ROOT / "tests" / "servers" / "misbehaving_server.py"
HTTP_START_TIMEOUT_S = 60.0  # a bound for a broken start only: a loaded machine starts servers slowly


def stdio(command: str, *args: str, env: dict[str, str] | None = None, **fields: Any) -> ConnectSpec:
    """A stdio spec that inherits the test environment plus `env`."""
    return ConnectSpec(
        transport=Transport.STDIO, command=command, args=args, env={**os.environ, **(env or {})}, **fields
    )


def tiny(**fields: Any) -> ConnectSpec:
    return stdio(sys.executable, str(TINY), **fields)


def notes(*args: str, **fields: Any) -> ConnectSpec:
    return stdio(sys.executable, str(NOTES), *args, **fields)


def misbehaving(mode: str, env: dict[str, str] | None = None, **fields: Any) -> ConnectSpec:
    return stdio(sys.executable, str(MISBEHAVING), mode, env=env, **fields)


def alive(pid: int) -> bool:
    """Whether `pid` is a running process (a zombie does not count)."""
    try:
        os.kill(pid, 0)
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().rsplit(b")", 1)[1].split()[0]
    except (ProcessLookupError, FileNotFoundError):
        return False
    return state != b"Z"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes], limit: float = HTTP_START_TIMEOUT_S) -> None:
    """Wait until something accepts connections on 127.0.0.1:`port`; fail if the process dies first."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"HTTP server exited with {process.returncode} before listening on {port}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port} after {limit}s")


@contextmanager
def listening(command: list[str], env: Mapping[str, str] | None = None) -> Iterator[int]:
    """Start `command --port PORT` (output discarded), yield PORT once it accepts connections, stop it."""
    port = free_port()
    process = subprocess.Popen(
        [*command, "--port", str(port)],
        env=None if env is None else dict(env),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process)
        yield port
    finally:
        stop(process)


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL after 10 s; reaped either way."""
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def with_fields(spec: ConnectSpec, **fields: Any) -> ConnectSpec:
    return replace(spec, **fields)
