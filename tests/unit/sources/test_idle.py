"""The idle rule on real processes: a sleeping server (or one whose child sleeps) lends its case's slot, a
busy one (or one whose child is busy) keeps it, and the body's own errors leave unwrapped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import anyio
import pytest

from toolproof.mcp.process import cpu_ticks
from toolproof.sources.idle import lending_when_idle

pytestmark = pytest.mark.serial  # counts clock ticks: runs alone, after the parallel part

BUSY = "import time\nend = time.time() + 20\nwhile time.time() < end: pass\n"
IDLE = "import time\ntime.sleep(20)\n"


@contextmanager
def process(code: str, *, in_child: bool = False) -> Iterator[int]:
    """A Python process running `code`, or running a child that runs it; yields the outer pid."""
    if in_child:
        code = f"import subprocess, sys\nsubprocess.run([sys.executable, '-c', {code!r}])\n"
    child = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    try:
        time.sleep(0.3)  # past its start-up
        yield child.pid
    finally:
        os.killpg(child.pid, signal.SIGKILL)  # it and its child: the group it leads
        child.wait()


def lent_within(pid: int | None, seconds: float) -> bool:
    lent: list[bool] = []

    async def main() -> None:
        async with lending_when_idle(pid, lambda: lent.append(True)):
            await anyio.sleep(seconds)

    anyio.run(main)
    return bool(lent)


@pytest.mark.parametrize("in_child", [False, True])
def test_a_busy_server_counts_clock_ticks_and_keeps_its_slot(in_child: bool) -> None:
    with process(BUSY, in_child=in_child) as pid:
        before = cpu_ticks(pid)
        time.sleep(0.3)
        after = cpu_ticks(pid)
        assert before is not None and after is not None and after - before >= 10
        assert not lent_within(pid, 0.5)


@pytest.mark.parametrize("in_child", [False, True])
def test_a_sleeping_server_lends_its_slot(in_child: bool) -> None:
    with process(IDLE, in_child=in_child) as pid:
        assert lent_within(pid, 0.5)


def test_no_local_process_lends_nothing() -> None:
    assert not lent_within(None, 0.3)


def test_a_gone_process_has_no_ticks() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert cpu_ticks(child.pid) is None


def test_the_bodys_error_leaves_unwrapped() -> None:
    async def main() -> None:
        async with lending_when_idle(1, lambda: None):
            raise KeyError("body")

    with pytest.raises(KeyError, match="body"):
        anyio.run(main)
