"""`fuzz` of several servers in one command: side by side, each server sent the inputs and given the verdicts
it gets when fuzzed alone with the same seed, reported server by server in the order given."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.integration.probe.conftest import Probed, target
from tests.integration.probe.test_side_by_side import misbehaving, verdicts

FLAGS = ("--seed", "3", "--runs", "6", "--timeout", "1s")


def inputs(done: Probed) -> list[list[Any]]:
    """The inputs each result sent, in order."""
    return [[step["request"] for step in result["steps"]] for result in done.report["results"]]


def test_fuzzing_several_servers_gives_each_its_inputs_and_verdicts_alone(
    probe: Callable[..., Probed],
) -> None:
    servers = [target("--only", "picky,crash,traceback"), misbehaving("exit_mid_call")]
    together = probe("fuzz", "--server", servers[0], "--server", servers[1], *FLAGS)
    alone = [probe("fuzz", "--server", server, *FLAGS) for server in servers]
    assert verdicts(together) == [row for done in alone for row in verdicts(done)]
    assert inputs(together) == [sent for done in alone for sent in inputs(done)]
    assert together.status == 1
    files = [row[0] for row in verdicts(together)]
    assert list(dict.fromkeys(files)) == servers  # server by server, in the order given
    crash = [row for row in verdicts(together) if row[4]]
    assert [row[1].split()[0] for row in crash] == ["crash"], "the crash's stderr is on its own tool only"
    settings = together.report["settings"]
    assert settings["replays"] == {
        server: done.report["settings"]["replay"] for server, done in zip(servers, alone, strict=True)
    }
    for server, done in zip(servers, alone, strict=True):
        assert f"{server}: seed 3;" in together.out
        assert f"replay: {done.report['settings']['replay']}" in together.out
    assert together.err.count("runs in a scratch directory") == 1  # said once, not per server


def test_a_server_that_cannot_start_leaves_the_other_fuzzed(probe: Callable[..., Probed]) -> None:
    done = probe("fuzz", "--server", "no-such-command-here", "--server", target("--only", "ok"), *FLAGS)
    assert done.status == 2
    assert [result["name"].split(":")[0] for result in done.report["results"]] == ["ok"]
    assert "toolproof fuzz: cannot probe the server: no-such-command-here:" in done.err
    assert "seed 3; 6 inputs" in done.out  # the server reached is summed up


def test_options_that_name_one_servers_tools_refuse_several(
    probe: Callable[..., Probed], tmp_path: Path
) -> None:
    two = ["--server", target("--only", "ok"), "--server", target("--only", "ok")]
    refused = probe("fuzz", *two, "--output", str(tmp_path / "cases"))
    assert refused.status == 2 and "--output writes the cases of one server" in refused.err
    assert not (tmp_path / "cases").exists()
    refused = probe("fuzz", *two, "--tool", "ok")
    assert refused.status == 2 and "--tool names a tool of one server: give one --server" in refused.err


def test_the_servers_are_fuzzed_at_the_same_time(probe: Callable[..., Probed], tmp_path: Path) -> None:
    """The quick server's inputs are all answered before the hanging server's last input is sent (three
    timeouts of 2 s, one after another), although the hanging server comes first and is reported first."""
    hang_calls, quick_calls = tmp_path / "hang", tmp_path / "quick"
    hang = target("--only", "hang", "--calls", str(hang_calls))
    quick = target("--only", "ok", "--calls", str(quick_calls))
    done = probe("fuzz", "--server", hang, "--server", quick, "--seed", "1", "--runs", "6", "--timeout", "2s")
    assert len(hang_calls.read_text().split()) == 3  # left after three timeouts
    assert len(quick_calls.read_text().split()) == 6
    assert quick_calls.stat().st_mtime < hang_calls.stat().st_mtime
    files = [result["file"] for result in done.report["results"]]
    assert list(dict.fromkeys(files)) == [hang, quick]
