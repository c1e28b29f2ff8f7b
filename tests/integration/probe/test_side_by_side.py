"""`lint` and `audit` of several servers in one command: side by side, each verdict the one the server gets
when probed alone, reported server by server in the order given."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.integration.probe.conftest import ROOT, Probed, target

MISBEHAVING = ROOT / "tests" / "servers" / "misbehaving_server.py"
SLOW = ROOT / "tests" / "servers" / "slow_server.py"


def misbehaving(mode: str) -> str:
    return shlex.join([sys.executable, str(MISBEHAVING), mode])


def verdicts(done: Probed) -> list[tuple[Any, ...]]:
    """Each result's server, name, status, class and whether it shows the target's crash on stderr."""
    return [
        (
            result["file"],
            result["name"],
            result["status"],
            (result.get("failure") or {}).get("details", {}).get("class"),
            "pulled the plug" in (result.get("stderr") or ""),
        )
        for result in done.report["results"]
    ]


def test_an_audit_of_several_servers_gives_each_its_verdicts_alone(probe: Callable[..., Probed]) -> None:
    servers = [target(), misbehaving("exit_mid_call"), misbehaving("garbage")]
    flags = ["--timeout", "2s"]
    together = probe("audit", *[word for server in servers for word in ("--server", server)], *flags)
    alone = [probe("audit", "--server", server, *flags) for server in servers]
    assert verdicts(together) == [row for done in alone for row in verdicts(done)]
    assert together.status == 1
    files = [row[0] for row in verdicts(together)]
    assert list(dict.fromkeys(files)) == servers  # server by server, in the order given
    crash = [row for row in verdicts(together) if row[4]]
    assert [row[1] for row in crash] == ["crash"], "the crash's stderr is on its own tool only"
    assert together.err.count("runs in a scratch directory") == 1  # said once, not per server


def test_a_lint_of_several_servers_gives_each_its_findings_alone(probe: Callable[..., Probed]) -> None:
    servers = [target(), misbehaving("garbage")]
    together = probe("lint", "--server", servers[0], "--server", servers[1], "--threshold", "3")
    alone = [probe("lint", "--server", server, "--threshold", "3") for server in servers]
    assert verdicts(together) == [row for done in alone for row in verdicts(done)]
    assert together.status == max(done.status for done in alone)
    stray = [result for result in together.report["results"] if result["name"].startswith("stdout holds")]
    assert len(stray) == 1 and "garbage" in stray[0]["file"]


def test_a_server_that_cannot_start_leaves_the_others_probed(probe: Callable[..., Probed]) -> None:
    for command in ("audit", "lint"):
        done = probe(command, "--server", target("--only", "ok"), "--server", "no-such-command-here")
        assert done.status == 2
        assert {result["name"].split()[0].rstrip(":") for result in done.report["results"]} == {"ok"}
        assert "cannot probe the server: no-such-command-here:" in done.err


def test_options_that_name_one_servers_tools_refuse_several(
    probe: Callable[..., Probed], tmp_path: Path
) -> None:
    two = ["--server", target("--only", "ok"), "--server", target("--only", "ok")]
    assert probe("audit", *two, "--output", str(tmp_path / "cases")).status == 2
    assert not (tmp_path / "cases").exists()
    assert probe("lint", *two, "--fix").status == 2


def test_the_servers_are_probed_at_the_same_time(probe: Callable[..., Probed], tmp_path: Path) -> None:
    """The quick server's calls are all made while the slow server's call is still sleeping, although
    the slow server comes first and its results are reported first."""
    slow_calls, quick_calls = tmp_path / "slow", tmp_path / "quick"
    slow = shlex.join([sys.executable, str(SLOW), "--delay", "5", "--calls", str(slow_calls)])
    quick = target("--only", "ok,picky,counter", "--calls", str(quick_calls))
    done = probe("audit", "--server", slow, "--server", quick)
    assert done.status == 0  # isError answers without a traceback are healthy
    assert quick_calls.stat().st_mtime < slow_calls.stat().st_mtime  # written after the 5 s sleep
    files = [result["file"] for result in done.report["results"]]
    assert list(dict.fromkeys(files)) == [slow, quick]


def test_the_tools_slow_last_time_are_called_first(
    probe: Callable[..., Probed], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An audit starts the calls that took longest last time (`.toolproof/durations.json`) before the
    others; one at a time (-j 1) it keeps the list order, and the verdicts are the same either way."""
    calls = tmp_path / "calls"
    server = target("--only", "ok,picky,counter,big", "--calls", str(calls))
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".toolproof").mkdir()
    recorded = {f"{server}::big": 3.0, f"{server}::counter": 1.5, f"{server}::ok": 0.5}
    (tmp_path / ".toolproof" / "durations.json").write_text(json.dumps({"seconds": recorded}))
    together = probe("audit", "--server", server, "-j", "4")
    assert calls.read_text().split()[:3] == ["big", "counter", "ok"]
    calls.unlink()
    (tmp_path / ".toolproof" / "durations.json").write_text(json.dumps({"seconds": recorded}))
    alone = probe("audit", "--server", server, "-j", "1")
    assert calls.read_text().split() == ["ok", "picky", "counter", "big"]
    assert verdicts(together) == verdicts(alone)


def test_the_server_slow_last_time_starts_first(
    probe: Callable[..., Probed], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server whose tool took longest when last audited starts first and the others once it has listed
    its tools; the report still follows the order given."""
    calls = tmp_path / "calls"
    quick = target("--only", "ok", "--calls", str(calls))
    slow = target("--only", "big", "--calls", str(calls))
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".toolproof").mkdir()
    recorded = {f"{slow}::big": 3.0, f"{quick}::ok": 0.01}
    (tmp_path / ".toolproof" / "durations.json").write_text(json.dumps({"seconds": recorded}))
    done = probe("audit", "--server", quick, "--server", slow)
    assert calls.read_text().split() == ["big", "ok"]
    assert [result["name"] for result in done.report["results"]] == ["ok", "big"]
