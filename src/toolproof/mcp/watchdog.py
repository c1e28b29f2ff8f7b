"""The watchdog that stops a run's servers when toolproof itself dies without cleaning up (SIGKILL, OOM).

The first server toolproof starts also starts this module, `python -m toolproof.mcp.watchdog`, as a
process in a session of its own (so Ctrl-C in a terminal does not reach it), reading a pipe whose only
writer is toolproof. Each server runs as the leader of a new session; toolproof writes `+PID` when one
starts and `-PID` once it has stopped it. When the pipe closes, which the kernel does however toolproof
ends, the watchdog SIGKILLs every process of the sessions still listed and every descendant of their
processes (a child that left with setsid included, while its parent lives), then exits. A normal run has
stopped every server by then, so the watchdog finds nothing to kill.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterable
from contextlib import suppress

from toolproof.mcp.proc_table import descendants, scan

ROUNDS = 3
"""Scans after the first kill: a process forked between a scan and its kill is found by the next."""


def victims(sessions: set[int]) -> set[int]:
    """The processes of `sessions` and every descendant of them, this process aside."""
    table = scan()
    found = {info.pid for info in table.values() if info.sid in sessions}
    for pid in list(found):
        found.update(info.pid for info in descendants(pid, table))
    found.discard(os.getpid())
    return found


def kill_all(sessions: set[int]) -> None:
    """SIGKILL everything of `sessions` until a scan finds nothing left (at most ROUNDS more scans)."""
    for _ in range(ROUNDS + 1):
        found = victims(sessions)
        if not found:
            return
        for pid in found:
            with suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)


def listen(lines: Iterable[bytes]) -> set[int]:
    """The sessions still listed when the stream of `+PID` / `-PID` lines ends."""
    sessions: set[int] = set()
    for line in lines:
        text = line.strip()
        if text[:1] == b"+" and text[1:].isdigit():
            sessions.add(int(text[1:]))
        elif text[:1] == b"-" and text[1:].isdigit():
            sessions.discard(int(text[1:]))
    return sessions


def main() -> None:
    for sig in (signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    kill_all(listen(sys.stdin.buffer))


if __name__ == "__main__":
    main()
