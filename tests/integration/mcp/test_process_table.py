"""The process table read along /proc's children lists (`subtree`): what `scan` gives for this process's
own part of it, orphans re-parented to it included."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from toolproof.mcp.proc_table import lists_children, scan, subtree
from toolproof.mcp.process import become_subreaper

pytestmark = pytest.mark.skipif(not lists_children(), reason="/proc lists no children here")

ORPHANING = (
    "import subprocess; "
    "child = subprocess.Popen(['sleep', '30'], start_new_session=True); "
    "print(child.pid, flush=True)"
)


def test_the_subtree_has_children_and_the_orphans_this_subreaper_adopted_as_scan_shows_them() -> None:
    """A process that leaves a child in a session of its own and exits: the child is re-parented to this
    process (a subreaper), so it stays in this process's subtree, where every server's session is sought."""
    assert become_subreaper()
    living = subprocess.Popen(["sleep", "30"])
    parent = subprocess.Popen([sys.executable, "-c", ORPHANING], stdout=subprocess.PIPE)
    assert parent.stdout is not None
    orphan = int(parent.stdout.readline())
    parent.wait()
    try:
        table, everything = subtree(os.getpid()), scan()
        for pid in (os.getpid(), living.pid, orphan):
            assert table[pid] == everything[pid]
        assert table[orphan].ppid == os.getpid() and table[orphan].sid == orphan
        assert parent.pid not in table
        assert set(table) < set(everything)
        assert subtree(parent.pid) == {}  # gone
    finally:
        living.kill()
        living.wait()
        os.kill(orphan, signal.SIGKILL)
        os.waitpid(orphan, 0)
