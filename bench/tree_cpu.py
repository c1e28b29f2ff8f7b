"""Run a command and measure its wall time and CPU: the whole process tree's, and its own process's.

The tree's CPU is the change in `getrusage(RUSAGE_CHILDREN)` around the command: user + system time of the
command and of every descendant that was waited for (servers a tool starts and stops, their children). The
command's own share is read from `/proc/PID/stat` once it has exited and before it is reaped (`waitid` with
`WNOWAIT` leaves it a zombie whose counters are final), so the rest, its children's CPU, is the servers'.
Linux only (`/proc`, `waitid`).
"""

from __future__ import annotations

import os
import resource
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

TICKS_PER_S = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Measured:
    """One command: wall seconds, CPU seconds of its tree and of its own process, what it printed."""

    wall_s: float
    cpu_s: float
    own_cpu_s: float
    returncode: int
    stdout: str
    stderr: str

    @property
    def children_cpu_s(self) -> float:
        """The CPU of everything the command started and waited for (for a test tool: its servers)."""
        return max(0.0, self.cpu_s - self.own_cpu_s)


def _own_cpu_s(pid: int) -> float:
    """User + system seconds of process `pid` itself (all its threads), from /proc/PID/stat."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()  # after the command name, which may hold spaces
    return (int(fields[11]) + int(fields[12])) / TICKS_PER_S  # utime, stime


def run_measured(argv: list[str], cwd: Path, env: dict[str, str]) -> Measured:
    """Run `argv` (no shell, stdin closed) in `cwd` and measure it; its output is read as UTF-8 text."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        process = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOWAIT)
        wall = time.perf_counter() - started
        own = _own_cpu_s(process.pid)
        returncode = process.wait()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        out.seek(0)
        err.seek(0)
        return Measured(
            wall_s=wall,
            cpu_s=(after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
            own_cpu_s=own,
            returncode=returncode,
            stdout=out.read().decode("utf-8", "replace"),
            stderr=err.read().decode("utf-8", "replace"),
        )
