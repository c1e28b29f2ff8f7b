"""The process table as /proc shows it (Linux): who runs, under which parent and session.

Standard library only, so that the watchdog (`mcp/watchdog.py`) reads it without loading anything else.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class ProcInfo:
    """One line of the process table: ids, start time (clock ticks after boot) and zombie state."""

    pid: int
    ppid: int
    sid: int
    start: int
    zombie: bool


def read_proc(pid: int) -> ProcInfo | None:
    """The process's /proc entry, or None when it is gone (or there is no /proc)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            raw = handle.read()
    except OSError:
        return None
    fields = raw[raw.rfind(b")") + 2 :].split()
    return ProcInfo(
        pid=pid, ppid=int(fields[1]), sid=int(fields[3]), start=int(fields[19]), zombie=fields[0] == b"Z"
    )


def scan() -> dict[int, ProcInfo]:
    """Every process visible in /proc (empty where there is no /proc)."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return {}
    table: dict[int, ProcInfo] = {}
    for name in names:
        if name.isdigit() and (info := read_proc(int(name))) is not None:
            table[info.pid] = info
    return table


def descendants(root: int, table: Mapping[int, ProcInfo]) -> list[ProcInfo]:
    """Every process whose parent chain leads to `root`, not counting `root`."""
    children: dict[int, list[ProcInfo]] = {}
    for info in table.values():
        children.setdefault(info.ppid, []).append(info)
    found: list[ProcInfo] = []
    frontier = [root]
    while frontier:
        for child in children.get(frontier.pop(), []):
            found.append(child)
            frontier.append(child.pid)
    return found
