"""`toolproof fuzz`: classes, reproducible seeds, shrinking, cases that fail until the server is fixed."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.integration.probe.conftest import Probed, target

from toolproof.cli import main


def timeless(text: str) -> str:
    return re.sub(r"\b\d+(\.\d+)?(ms|s)\b", "T", text)


def classes(done: Probed) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for result in done.report["results"]:
        tool = result["name"].split(" ")[0].rstrip(":")
        failure = result["failure"]
        found.setdefault(tool, set()).add(failure["details"]["class"] if failure else "clean")
    return found


def test_classes_on_the_probe_target(probe: Callable[..., Probed]) -> None:
    done = probe("fuzz", "--server", target(), "--seed", "3", "--runs", "8", "--timeout", "1s", "-j", "2")
    assert done.status == 1
    assert classes(done) == {
        "ok": {"clean"},
        "crash": {"crash"},
        "hang": {"timeout"},
        "strict": {"clean"},  # -32602 to hostile input is a correct rejection
        "traceback": {"crash"},
        "picky": {"clean"},
        "boom_on_long": {"crash"},
        "wipe": {"clean"},  # skipped: destructive
        "bad_reply": {"protocol-error"},
        "counter": {"clean"},
        "big": {"clean"},
    }
    assert done.verdicts()["wipe"] == "SKIP"
    assert "strict: 8 inputs (0 passed, 8 rejected, 0 skipped)" in done.verdicts()


def test_same_seed_prints_the_same_results(probe: Callable[..., Probed]) -> None:
    argv = (
        "fuzz",
        "--server",
        target("--only", "ok,picky,boom_on_long,traceback"),
        "--seed",
        "11",
        "--runs",
        "30",
    )
    first, second = probe(*argv), probe(*argv, "-j", "3")
    assert first.verdicts() == second.verdicts()
    assert [r["failure"] for r in first.report["results"]] == [r["failure"] for r in second.report["results"]]
    assert timeless(first.out) == timeless(second.out)


def test_without_seed_the_seed_is_printed_and_replays(probe: Callable[..., Probed]) -> None:
    done = probe("fuzz", "--server", target("--only", "ok,picky"), "--runs", "60")
    replay = next(line for line in done.out.splitlines() if line.startswith("replay: "))
    seed = replay.split("--seed ")[1].split()[0]
    again = probe("fuzz", "--server", target("--only", "ok,picky"), "--runs", "60", "--seed", seed)
    assert again.verdicts() == done.verdicts()
    assert f"fuzz: seed {seed};" in again.out


def test_a_crash_is_minimised_into_a_failing_case(probe: Callable[..., Probed], tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    done = probe(
        "fuzz",
        "--server",
        target("--only", "boom_on_long"),
        "--seed",
        "1",
        "--runs",
        "8",
        "--output",
        str(cases),
    )
    (finding,) = done.report["results"]
    assert finding["failure"]["details"]["minimised"] == {"name": "a" * 101}
    assert "name of 10000 characters overflowed" in finding["stderr"]
    (case,) = cases.iterdir()
    assert main(["run", str(case), "-q"]) == 1


def test_nan_and_infinity_are_skipped_not_blamed(probe: Callable[..., Probed]) -> None:
    done = probe(
        "fuzz", "--server", "mcp-server-everything", "--tool", "get-sum", "--seed", "1", "--runs", "40"
    )
    assert done.status == 0
    (result,) = done.report["results"]
    assert result["status"] == "PASS"
    assert "4 skipped" in result["name"]  # NaN and infinity for a and for b


def test_unknown_tool_is_a_usage_error(probe: Callable[..., Probed]) -> None:
    done = probe("fuzz", "--server", target("--only", "ok"), "--tool", "nope")
    assert done.status == 2
    assert "no tool named 'nope'" in done.err


@pytest.mark.servers
def test_time_server(probe: Callable[..., Probed]) -> None:
    done = probe("fuzz", "--server", "mcp-server-time", "--seed", "5", "--runs", "30")
    assert done.status == 0
    assert set(done.verdicts().values()) == {"PASS"}


def test_a_tool_that_keeps_hanging_is_left_after_three_timeouts(probe: Callable[..., Probed]) -> None:
    done = probe(
        "fuzz", "--server", target("--only", "hang,ok"), "--seed", "1", "--runs", "10", "--timeout", "1s"
    )
    (hang,) = [result for result in done.report["results"] if result["name"].startswith("hang")]
    assert hang["failure"]["details"]["categories"] == [
        "empty object",
        "null args",
        "text: wrong type (sent int)",
    ]
    assert "7 later inputs not sent after 3 timeouts in a row" in hang["failure"]["message"]
    assert done.verdicts()["ok: 10 inputs (10 passed, 0 rejected, 0 skipped)"] == "PASS"
