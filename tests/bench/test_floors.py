"""The floor arithmetic and "same work" rule of bench/compare.py (bench/floors.py), and its CPU reading."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from bench.floors import floor_s, left_out_because, longest_case_s, notification_waits, ratio_over
from bench.tree_cpu import run_measured

ROOT = Path(__file__).resolve().parents[2]


def test_the_floor_is_the_servers_cpu_spread_over_the_cores() -> None:
    assert floor_s(16.6, 2, 3.0) == pytest.approx(8.3)
    assert floor_s(16.6, 4, 3.0) == pytest.approx(4.15)


def test_the_floor_is_never_below_the_longest_case() -> None:
    assert floor_s(1.0, 2, 5.0) == 5.0


def test_a_machine_without_cores_is_an_error() -> None:
    with pytest.raises(ValueError, match="cores"):
        floor_s(1.0, 0, 0.0)


def test_the_longest_case_takes_each_case_at_its_shortest_time() -> None:
    ours = {"echo": 0.4, "slow": 10.3, "wait": 5.2}
    theirs = {"echo": 0.2, "slow": 10.1, "wait": 0.3, "only theirs": 0.5}
    assert longest_case_s(ours, theirs) == 10.1
    assert longest_case_s({"wait": 5.2}, {"wait": 0.3}) == 0.3
    assert longest_case_s({"ours only": 2.0}, {}) == 2.0
    assert longest_case_s({}, {}) == 0.0


def test_a_suite_is_kept_when_verdicts_agree_and_nothing_waits() -> None:
    assert left_out_because({"toolproof --reuse-server": 0, "mcp-assert --reuse-server": 0}, []) == []


def test_a_suite_is_left_out_for_each_variant_whose_verdicts_differ() -> None:
    reasons = left_out_because({"toolproof --reuse-server": 0, "mcp-assert --reuse-server": 1}, [])
    assert reasons == ["mcp-assert --reuse-server: 1 verdict differs from its fresh run"]
    reasons = left_out_because({"toolproof --reuse-server": 2, "mcp-assert --reuse-server": 0}, [])
    assert reasons == ["toolproof --reuse-server: 2 verdicts differ from its fresh run"]


def test_a_suite_is_left_out_for_the_cases_that_wait_for_a_notification() -> None:
    (reason,) = left_out_because({"toolproof": 0, "mcp-assert": 0}, ["14_subscribe.yaml"])
    assert reason == "14_subscribe.yaml expects a notification"
    reasons = left_out_because({"toolproof": 0, "mcp-assert": 1}, ["a.yaml", "b.yaml"])
    assert reasons == [
        "mcp-assert: 1 verdict differs from its fresh run",
        "a.yaml, b.yaml expect a notification",
    ]


def test_notification_waits_are_found_in_any_document_and_block(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(
        "name: a\nassert_resources:\n  read: x://y\n  expect_notification: true\n"
    )
    (tmp_path / "b.yaml").write_text(
        "name: b\nassert:\n  tool: t\n---\nname: c\nassert_resources:\n"
        "  subscribe: x://y\n  expect_notification: true\n"
    )
    (tmp_path / "c.yaml").write_text(
        "name: d\nassert_resources:\n  read: x://y\n  expect_notification: false\n"
    )
    (tmp_path / "d.yaml").write_text(
        "name: e\nassert:\n  tool: t\n  args: {text: 'expect_notification: true'}\n"
    )
    assert notification_waits(tmp_path) == ["a.yaml", "b.yaml"]


def test_of_the_bench_suites_only_memory_waits_for_a_notification() -> None:
    parity = ROOT / "tests" / "parity" / "suites"
    found = {suite.name: notification_waits(suite) for suite in parity.iterdir() if suite.is_dir()}
    assert found["memory"] == ["14_subscribe_no_notification.yaml"]
    assert not any(files for name, files in found.items() if name != "memory")
    assert notification_waits(ROOT / "bench" / "suites" / "everything50") == []


def test_the_ratio_is_taken_over_the_kept_suites_only() -> None:
    ours = {"time": 3.0, "memory": 6.0, "everything": 2.0}
    theirs = {"time": 6.0, "memory": 3.0, "everything": 4.0}
    assert ratio_over(ours, theirs, ["time", "everything"]) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="no suite"):
        ratio_over(ours, theirs, [])


BURN = "import time\nend = time.process_time() + {s}\nwhile time.process_time() < end: pass\n"


@pytest.mark.serial
def test_a_commands_own_cpu_is_told_apart_from_its_childrens(tmp_path: Path) -> None:
    child = BURN.format(s=0.3)
    parent = (
        BURN.format(s=0.2) + f"import subprocess, sys\nsubprocess.run([sys.executable, '-c', {child!r}])\n"
    )
    done = run_measured([sys.executable, "-c", parent], tmp_path, {})
    assert done.returncode == 0, done.stderr
    assert 0.18 <= done.own_cpu_s < 0.4  # its own burn and Python's start, read in clock ticks
    assert 0.28 <= done.children_cpu_s < 0.5
    assert done.cpu_s >= 0.48  # the whole tree
