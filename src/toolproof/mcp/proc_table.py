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


_READ_BYTES = 4096


def _read(path: str, *, whole: bool = False) -> bytes | None:
    """A /proc file, None when it is gone: its first read (a stat file comes whole in one), or `whole`."""
    try:
        handle = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        data = os.read(handle, _READ_BYTES)
        while whole and (more := os.read(handle, _READ_BYTES)):
            data += more
        return data
    except OSError:
        return None
    finally:
        os.close(handle)


def read_proc(pid: int) -> ProcInfo | None:
    """The process's /proc entry, or None when it is gone (or there is no /proc)."""
    raw = _read(f"/proc/{pid}/stat")
    if not raw:
        return None
    fields = raw[raw.rfind(b")") + 2 :].split(None, 20)
    return ProcInfo(pid, int(fields[1]), int(fields[3]), int(fields[19]), fields[0] == b"Z")


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


def lists_children() -> bool:
    """Whether /proc lists each thread's children (`/proc/PID/task/TID/children`, Linux 3.5 and later with
    CONFIG_PROC_CHILDREN), which `subtree` reads."""
    pid = os.getpid()
    return os.path.exists(f"/proc/{pid}/task/{pid}/children")


def subtree(root: int) -> dict[int, ProcInfo]:
    """`root` and every process whose parent chain leads to it, read along the children lists of /proc
    (where `lists_children`): the part of `scan` under `root`, at the cost of its size rather than the
    machine's. Empty when `root` is gone."""
    table: dict[int, ProcInfo] = {}
    frontier = [root]
    while frontier:
        pid = frontier.pop()
        info = read_proc(pid)
        if info is None or pid in table:
            continue
        table[pid] = info
        try:
            threads = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for thread in threads:
            listed = _read(f"/proc/{pid}/task/{thread}/children", whole=True)
            if listed:
                frontier.extend(int(child) for child in listed.split())
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
