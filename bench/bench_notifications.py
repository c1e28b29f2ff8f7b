"""Benchmark: a server sending 10,000 log notifications before its reply (tests/servers, notification_flood).

Prints the median time of that one tools/call through toolproof's client (target: under 0.5 s; it was
about 2 s when every notification went through the SDK's per-notification task), and, when mcp-assert is on
PATH, the wall time of the same one-case suite under mcp-assert and toolproof with the flood and without.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio

from toolproof.mcp.session import open_session
from toolproof.mcp.spec import ConnectSpec
from toolproof.model.server_config import Transport

ROOT = Path(__file__).resolve().parent.parent
SERVER = ROOT / "tests" / "servers" / "misbehaving_server.py"
FLOOD = 10_000
ROUNDS = 5


async def call_seconds(notifications: int) -> float:
    env = {**os.environ, "NOTIFICATIONS": str(notifications)}
    spec = ConnectSpec(
        transport=Transport.STDIO, command=sys.executable, args=(str(SERVER), "notification_flood"), env=env
    )
    async with open_session(spec) as session:
        started = time.perf_counter()
        await session.call_tool("t", {})
        elapsed = time.perf_counter() - started
        if len(session.notifications) != notifications:
            sys.exit(f"recorded {len(session.notifications)} of {notifications} notifications")
    return elapsed


def suite_wall(argv: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=ROOT)
    if done.returncode != 0:
        tail = f"{done.stdout[-2000:]}{done.stderr[-2000:]}"
        sys.exit(f"{argv[0]} failed with status {done.returncode}:\n{tail}")
    return time.perf_counter() - started


def main() -> int:
    calls = [anyio.run(call_seconds, FLOOD) for _ in range(ROUNDS)]
    quiet = [anyio.run(call_seconds, 0) for _ in range(ROUNDS)]
    print(
        f"tools/call after {FLOOD} notifications: median {statistics.median(calls) * 1000:.0f} ms "
        f"(without notifications: {statistics.median(quiet) * 1000:.0f} ms; target < 500 ms)"
    )
    binary = shutil.which("mcp-assert")
    if binary is None:
        print("mcp-assert is not on PATH: comparison skipped (run `make setup`)")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        for count in (0, FLOOD):
            suite = Path(tmp) / f"flood{count}"
            suite.mkdir()
            (suite / "flood.yaml").write_text(
                f"name: flood\nserver:\n  command: {sys.executable}\n  args: [{SERVER}, notification_flood]\n"
                f"  env: {{NOTIFICATIONS: '{count}'}}\nassert: {{tool: t, expect: {{contains: [ok]}}}}\n"
            )
            theirs = statistics.median(suite_wall([binary, "run", "--suite", str(suite)]) for _ in range(3))
            ours = statistics.median(
                suite_wall([sys.executable, "-m", "toolproof", "run", str(suite), "-q"]) for _ in range(3)
            )
            print(
                f"one case, {count} notifications: mcp-assert {theirs * 1000:.0f} ms, "
                f"toolproof {ours * 1000:.0f} ms"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
