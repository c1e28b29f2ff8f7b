"""A probed server runs in a scratch directory, removed afterwards, never in the caller's (`--cwd DIR` runs
it in DIR instead), and the probe says so."""

from __future__ import annotations

import shlex
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.integration.probe.conftest import ROOT, Probed

pytestmark = pytest.mark.servers

SERVER = shlex.join([sys.executable, str(ROOT / "tests" / "servers" / "cwd_writing_server.py")])
PROBES = [["lint"], ["audit"], ["fuzz", "--runs", "5", "--seed", "1"], ["conformance"]]


@pytest.mark.parametrize("command", PROBES, ids=[argv[0] for argv in PROBES])
def test_the_caller_s_directory_stays_untouched(
    command: list[str], probe: Callable[..., Probed], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    caller, scratch_root = tmp_path / "caller", tmp_path / "tmp"
    caller.mkdir()
    scratch_root.mkdir()
    monkeypatch.chdir(caller)
    monkeypatch.setattr(tempfile, "tempdir", str(scratch_root))
    probed = probe(*command, "--server", SERVER)
    assert probed.report, probed.err
    assert [path.name for path in caller.iterdir()] in ([], [".toolproof"])  # toolproof's own records only
    assert list(scratch_root.iterdir()) == []  # the scratch directory is gone
    assert "the server runs in a scratch directory, removed afterwards" in probed.err


def test_cwd_runs_the_server_there(probe: Callable[..., Probed], tmp_path: Path) -> None:
    chosen = tmp_path / "chosen"
    chosen.mkdir()
    probed = probe("fuzz", "--runs", "5", "--seed", "1", "--server", SERVER, "--cwd", str(chosen))
    assert probed.report, probed.err
    assert (chosen / "started-here").exists()
    assert len(list(chosen.iterdir())) > 1  # and the files the fuzzed tool saved
    assert "scratch directory" not in probed.err


def test_a_server_named_by_a_relative_path_still_starts(
    probe: Callable[..., Probed], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    relative = shlex.join([sys.executable, "tests/servers/cwd_writing_server.py"])
    probed = probe("lint", "--server", relative)
    assert probed.status in (0, 1), probed.err
    assert probed.report["results"]
