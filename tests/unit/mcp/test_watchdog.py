"""The watchdog keeps the sessions it was told of and not yet told to forget, and kills all of them: their
members and what their members started, also in a new session."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time

from toolproof.mcp.proc_table import read_proc
from toolproof.mcp.watchdog import kill_all, listen


def test_it_keeps_the_sessions_still_listed_when_the_pipe_closes() -> None:
    lines = [b"+10\n", b"+11\n", b"-10\n", b"junk\n", b"+12", b"-\n"]
    assert listen(lines) == {11, 12}


def gone(pid: int, limit_s: float = 5.0) -> bool:
    deadline = time.monotonic() + limit_s
    while (info := read_proc(pid)) is not None and not info.zombie:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_it_kills_a_session_and_a_child_that_left_it() -> None:
    script = "import subprocess, sys, time; c = subprocess.Popen(['sleep', '300'], start_new_session=True); "
    script += "print(c.pid, flush=True); time.sleep(300)"
    leader = subprocess.Popen(
        ["python3", "-c", script], stdout=subprocess.PIPE, start_new_session=True, text=True
    )
    assert leader.stdout is not None
    child = int(leader.stdout.readline())
    try:
        kill_all({leader.pid})
        leader.wait(5)
        assert gone(child)
    finally:
        for pid in (leader.pid, child):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        leader.wait(5)
