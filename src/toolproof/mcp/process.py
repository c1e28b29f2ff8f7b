"""Server processes: start one in its own session, keep its stderr tail, and leave nothing of it behind.

A server runs as the leader of a new session and process group. Teardown closes its stdin, waits
`stop_grace`, sends SIGTERM to the group, waits `term_grace`, then SIGKILLs the group and every
descendant seen while the server ran, including ones that left the group with setsid. On Linux
toolproof makes itself a child subreaper, so daemons that double-fork are re-parented to it rather
than to init; `reap_strays` kills and reaps whatever is still left at the end of a run. Should toolproof
die without cleaning up (SIGKILL, the OOM killer), its watchdog (`mcp/watchdog.py`), told of every server
as it starts and stops, kills what is left.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager

import anyio
import anyio.abc
import anyio.to_thread

from toolproof.mcp.errors import SpawnFailed
from toolproof.mcp.proc_table import ProcInfo, descendants, lists_children, read_proc, scan, subtree

STDERR_TAIL_BYTES = 64 * 1024
WATCH_INTERVAL_S = 0.5
EXIT_DRAIN_S = 0.5
_KILL_WAIT_S = 2.0
_REAP_WAIT_S = 1.0
_STDERR_SETTLE_S = 0.2
_PR_SET_CHILD_SUBREAPER = 36


def cpu_ticks(root: int) -> int | None:
    """Clock ticks of CPU (user and system, with reaped children's) used so far by `root` and every live
    descendant; None when `root` is gone or there is no /proc."""
    files = _tree_files(root, "stat")
    if files is None:
        return None
    return sum(sum(int(field) for field in raw[raw.rfind(b")") + 2 :].split()[11:15]) for raw in files)


def resident_bytes(root: int) -> int | None:
    """Resident memory (RSS) of `root` and every live descendant, in bytes; None when `root` is gone or there
    is no /proc."""
    files = _tree_files(root, "statm")
    if files is None:
        return None
    return sum(int(raw.split()[1]) for raw in files) * os.sysconf("SC_PAGE_SIZE")


def _tree_files(root: int, name: str) -> list[bytes] | None:
    """The file /proc/PID/`name` of `root` and of every live descendant; None when `root` is gone or there
    is no /proc."""
    found: list[bytes] = []
    frontier, seen = [root], set()
    while frontier:
        pid = frontier.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            with open(f"/proc/{pid}/{name}", "rb") as handle:
                raw = handle.read()
            threads = os.listdir(f"/proc/{pid}/task")
        except OSError:
            if pid == root:
                return None
            continue
        found.append(raw)
        for thread in threads:
            with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{thread}/children", "rb") as handle:
                frontier.extend(int(child) for child in handle.read().split())
    return found


class _Registry:
    """What this process has started: servers, and descendants seen under them (pid -> start, owner)."""

    def __init__(self) -> None:
        self.spawned: set[int] = set()
        self.live: set[int] = set()
        self.tracked: dict[int, tuple[int, int]] = {}
        self.subreaper = False
        self.walks = False  # whether `processes_under` may read a subtree rather than the whole table

    def remember(self, owner: int, table: Mapping[int, ProcInfo]) -> None:
        for info in descendants(owner, table):
            self.tracked[info.pid] = (info.start, owner)

    def owner(self, info: ProcInfo) -> int | None:
        """The server under which this very process (same pid and start time) was seen, if any."""
        entry = self.tracked.get(info.pid)
        return entry[1] if entry is not None and entry[0] == info.start else None

    def forget_dead(self) -> None:
        self.tracked = {
            pid: entry
            for pid, entry in self.tracked.items()
            if (info := read_proc(pid)) is not None and info.start == entry[0]
        }


_registry = _Registry()


class _Watchdog:
    """This process's watchdog (`python -m toolproof.mcp.watchdog`), started with the first server."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        atexit.register(self.close)

    def watch(self, pid: int) -> None:
        """Tell the watchdog a server leads session `pid` (starting the watchdog if need be)."""
        with self._lock:
            if self._process is None or self._process.poll() is not None:
                self._process = self._start()
            self._tell(f"+{pid}\n")

    def forget(self, pid: int) -> None:
        """The server of session `pid` is stopped: nothing of it is the watchdog's to kill."""
        with self._lock:
            if self._process is not None:
                self._tell(f"-{pid}\n")

    def close(self) -> None:
        """End the watchdog with this process (its servers are stopped by then)."""
        with self._lock:
            process, self._process = self._process, None
        if process is not None and process.stdin is not None:
            with contextlib.suppress(OSError):
                process.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(_KILL_WAIT_S)

    def _tell(self, line: str) -> None:
        assert self._process is not None and self._process.stdin is not None
        try:
            self._process.stdin.write(line.encode())
            self._process.stdin.flush()
        except OSError:  # it was killed: the next server starts a new one
            self._process = None

    @staticmethod
    def _start() -> subprocess.Popen[bytes]:
        """The watchdog, in a session of its own, reading a pipe only this process holds (the pipe's
        other end is not inherited by the servers started later)."""
        package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        path = os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))
        process = subprocess.Popen(
            [sys.executable, "-m", "toolproof.mcp.watchdog"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONPATH": path},
            start_new_session=True,
        )
        return process


_watchdog = _Watchdog()


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux; once). True when it is."""
    if not _registry.subreaper and sys.platform == "linux":
        libc = ctypes.CDLL(None, use_errno=True)
        _registry.subreaper = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        _registry.walks = _registry.subreaper and lists_children()
    return _registry.subreaper


async def processes_under(root: int) -> Mapping[int, ProcInfo]:
    """`root` and the processes descending from it, or more. As a subreaper, this process keeps every
    process a server started in its own subtree (an orphan is re-parented to it), so where /proc lists
    children, `root`'s subtree is read: a few files, not one per process of the machine. Elsewhere, the
    whole process table, read in a worker thread."""
    if _registry.walks:
        return subtree(root)
    return await anyio.to_thread.run_sync(scan)


def resolve_command(command: str, env: Mapping[str, str], cwd: str | None) -> str:
    """The executable to run: a path (relative to `cwd`) or a name looked up on the server's PATH."""
    if not command:
        raise SpawnFailed("no command to start the server (server.command is empty)")
    if os.sep in command:
        path = os.path.join(cwd or os.getcwd(), command)
        if not os.path.isfile(path):
            raise SpawnFailed(f"command not found: {command!r} does not exist{_args_hint(command)}")
        if not os.access(path, os.X_OK):
            raise SpawnFailed(f"command {command!r} is not executable (chmod +x it?)")
        return path
    search = env.get("PATH", os.defpath)
    found = shutil.which(command, path=search)
    if found is None:
        shown = search if len(search) <= 300 else search[:300] + "..."
        raise SpawnFailed(
            f"command not found: {command!r} is not on the server's PATH ({shown}); "
            f"install it, fix the name, or give its full path{_args_hint(command)}"
        )
    return found


def _args_hint(command: str) -> str:
    """For a command written with its arguments (`python server.py`), how to write it; else nothing."""
    words = command.split()
    if len(words) < 2:
        return ""
    return (
        f"; the command is one program, its arguments belong in `args:` "
        f"(command: {words[0]}, args: [{', '.join(words[1:])}])"
    )


class _Tail:
    """The last `limit` bytes of a stream, and how many came before them."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._data = bytearray()
        self._dropped = 0

    def add(self, chunk: bytes) -> None:
        self._data += chunk
        if len(self._data) > 2 * self.limit:
            excess = len(self._data) - self.limit
            del self._data[:excess]
            self._dropped += excess

    def text(self) -> str:
        kept = bytes(self._data[-self.limit :])
        dropped = self._dropped + len(self._data) - len(kept)
        body = kept.decode("utf-8", errors="replace")
        return f"[... {dropped} earlier bytes not kept]\n{body}" if dropped else body


class ServerProcess:
    """A running server: its pipes, its stderr tail, and how it ended."""

    def __init__(self, process: anyio.abc.Process, stop_grace: float, term_grace: float) -> None:
        self.process = process
        self.pid = process.pid
        self.stop_grace = stop_grace
        self.term_grace = term_grace
        self._stderr = _Tail(STDERR_TAIL_BYTES)
        self._stderr_closed = anyio.Event()

    @property
    def stderr(self) -> str:
        """The server's stderr so far: the last 64 KiB, with a note of how much came before."""
        return self._stderr.text()

    def exit_description(self) -> str:
        """How the process ended, e.g. "exited with code 3" or "was killed by SIGKILL"."""
        code = self.process.returncode
        if code is None:
            return "is still running"
        if code < 0:
            with contextlib.suppress(ValueError):
                return f"was killed by {signal.Signals(-code).name}"
        return f"exited with code {code}"

    async def settle(self, limit: float) -> bool:
        """Wait up to `limit` seconds for the process to exit and its stderr to drain; True if it exited."""
        with anyio.move_on_after(limit):
            await self.process.wait()
            await self._stderr_closed.wait()
        return self.process.returncode is not None

    async def exited(self, drain: float = EXIT_DRAIN_S) -> None:
        """Return `drain` seconds after the process itself exits: time for what it wrote to arrive, even
        when a child it started still holds its stdout open (so stdout alone never says it ended)."""
        await self.process.wait()
        await anyio.sleep(drain)

    async def drain_stderr(self) -> None:
        """Read stderr until it closes, keeping only the tail, so a chatty server never blocks on it."""
        stream = self.process.stderr
        if stream is None:  # inherited: the server writes to our stderr itself
            self._stderr_closed.set()
            return
        try:
            while True:
                self._stderr.add(await stream.receive(STDERR_TAIL_BYTES))
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass
        finally:
            self._stderr_closed.set()

    async def watch(self) -> None:
        """Record the server's descendants every WATCH_INTERVAL_S, so ones that escape can be found later."""
        while True:
            await anyio.sleep(WATCH_INTERVAL_S)
            _registry.remember(self.pid, await processes_under(self.pid))

    async def stop(self) -> None:
        """Close stdin, then SIGTERM and SIGKILL the group and every known descendant; reap them."""
        _registry.remember(self.pid, await processes_under(self.pid))
        if self.process.stdin is not None:
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                await self.process.stdin.aclose()
        with anyio.move_on_after(self.stop_grace):
            await self.process.wait()
        if self.process.returncode is None:
            await self._signal_all(signal.SIGTERM)
            with anyio.move_on_after(self.term_grace):
                await self.process.wait()
        leftovers = await self._signal_all(signal.SIGKILL)
        with anyio.move_on_after(_KILL_WAIT_S):
            await self.process.wait()
        await _reap_async(leftovers)
        _registry.live.discard(self.pid)
        _registry.forget_dead()

    async def _signal_all(self, sig: signal.Signals) -> list[ProcInfo]:
        """Signal the process group and every known descendant outside it; return those descendants."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, sig)
        table = await processes_under(os.getpid())  # where the server's session and orphans are
        _registry.remember(self.pid, table)
        others = [
            info
            for info in table.values()
            if info.pid != self.pid and (info.sid == self.pid or _registry.owner(info) == self.pid)
        ]
        for info in others:
            if not info.zombie:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(info.pid, sig)
        return others


@asynccontextmanager
async def run_server(
    command: str,
    args: Sequence[str],
    env: Mapping[str, str],
    cwd: str | None,
    *,
    stop_grace: float,
    term_grace: float,
    inherit_stderr: bool = False,
) -> AsyncIterator[ServerProcess]:
    """Start `command args` (no shell) with exactly `env`; on exit stop it and everything it started.

    With `inherit_stderr` the server writes to this process's stderr directly and no tail is kept.
    """
    executable = resolve_command(command, env, cwd)
    if cwd is not None and not os.path.isdir(cwd):
        raise SpawnFailed(f"cannot start {command!r}: working directory {cwd!r} does not exist")
    become_subreaper()
    try:
        process = await anyio.open_process(
            [executable, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None if inherit_stderr else subprocess.PIPE,
            env=dict(env),
            cwd=cwd,
            start_new_session=True,
        )
    except OSError as error:
        raise SpawnFailed(f"cannot start {command!r}: {error.strerror or error}") from error
    _registry.spawned.add(process.pid)
    _registry.live.add(process.pid)
    _watchdog.watch(process.pid)
    server = ServerProcess(process, stop_grace, term_grace)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(server.drain_stderr)
        tasks.start_soon(server.watch)
        try:
            yield server
        finally:
            with anyio.CancelScope(shield=True):
                await server.stop()
                await server.settle(_STDERR_SETTLE_S)
                tasks.cancel_scope.cancel()
                with anyio.move_on_after(_KILL_WAIT_S):
                    await process.aclose()
                _watchdog.forget(process.pid)


def _strays(table: Mapping[int, ProcInfo]) -> list[ProcInfo]:
    """Processes left by servers of this run that no live server owns."""
    me, my_sid = os.getpid(), os.getsid(0)
    found = []
    for info in table.values():
        if info.pid in _registry.spawned or info.pid == me:
            continue
        owner = _registry.owner(info)
        # A child of ours in a foreign session was re-parented to us (subreaper): it comes from a server's
        # session, or it is a double-forked daemon (not the leader of its own session, so not something
        # this process started with a new session).
        orphan = (
            info.ppid == me
            and info.sid not in (my_sid, *_registry.live)
            and (info.sid in _registry.spawned or info.sid != info.pid)
        )
        if (owner is not None and owner not in _registry.live) or (owner is None and orphan):
            found.append(info)
    return found


def reap_strays() -> list[int]:
    """Kill and reap what servers of this run left running; return the pids that had to be killed."""
    strays = _strays(scan())
    killed = []
    for info in strays:
        if not info.zombie:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(info.pid, signal.SIGKILL)
                killed.append(info.pid)
    deadline = time.monotonic() + _REAP_WAIT_S
    pending = [info.pid for info in strays if info.ppid == os.getpid()]
    while pending and time.monotonic() < deadline:
        pending = [pid for pid in pending if not _reaped(pid)]
        if pending:
            time.sleep(0.01)
    _registry.forget_dead()
    return sorted(killed)


async def _reap_async(infos: Sequence[ProcInfo]) -> None:
    """Reap the given processes that are this process's children (re-parented orphans)."""
    pending = [info.pid for info in infos if info.ppid == os.getpid() or _is_child(info.pid)]
    with anyio.move_on_after(_REAP_WAIT_S):
        while pending:
            pending = [pid for pid in pending if not _reaped(pid)]
            if pending:
                await anyio.sleep(0.01)


def _is_child(pid: int) -> bool:
    info = read_proc(pid)
    return info is not None and info.ppid == os.getpid()


def _reaped(pid: int) -> bool:
    """Collect `pid` if it has exited; True when it is gone (reaped now, or not our child any more)."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return done != 0
