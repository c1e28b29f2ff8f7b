"""`toolproof fuzz`: classes, reproducible seeds, shrinking, cases that fail until the server is fixed."""

from __future__ import annotations

import re
import subprocess
import sys
import time
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
    first, *lines = case.read_text().splitlines()
    assert first.startswith("# yaml-language-server: $schema=")
    assert [line.split(":")[0] for line in lines if not line.startswith(" ")] == [
        "name",
        "server",
        "timeout",
        "assert",
    ]


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


def test_a_tool_that_fails_every_call_is_shrunk_once(probe: Callable[..., Probed], tmp_path: Path) -> None:
    calls = tmp_path / "calls.txt"
    done = probe(
        "fuzz", "--server", target("--failing", "2", "--calls", str(calls)), "--seed", "4", "--runs", "30"
    )
    assert done.status == 1
    findings = done.report["results"]
    assert [result["name"] for result in findings] == ["render_0 [empty object]", "render_1 [empty object]"]
    for finding in findings:
        assert len(finding["failure"]["details"]["categories"]) == 30  # every input failed the same way
        assert len(finding["steps"]) == 30
    shrinking = sum(finding["failure"]["details"]["shrink_calls"] for finding in findings)
    assert len(calls.read_text().splitlines()) == 2 * 30 + shrinking  # one shrink per tool, not per input
    assert shrinking <= 2 * 10


def test_results_stream_as_each_tool_finishes(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "toolproof", "fuzz", "--server", target("--only", "ok,hang")]
    argv += ["--seed", "1", "--runs", "5", "--timeout", "1s"]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, cwd=tmp_path) as running:
        assert running.stdout is not None
        first = running.stdout.readline()
        seen = time.monotonic()
        rest = running.stdout.read()
    assert first.startswith("PASS  ok: 5 inputs")
    assert time.monotonic() - seen > 2  # the hanging tool's three timeouts came after ok was printed
    assert "FAIL  hang [empty object]" in rest


def test_max_time_stops_and_names_the_tools_not_reached(probe: Callable[..., Probed]) -> None:
    done = probe(
        "fuzz", "--server", target("--only", "hang,picky,counter"), "--seed", "1", "--runs", "10",
        "--timeout", "1s", "--max-time", "1.5s",
    )  # fmt: skip
    assert done.status == 1
    (hang,) = [result for result in done.report["results"] if result["name"].startswith("hang")]
    assert "later inputs not sent: --max-time ran out" in hang["failure"]["message"]
    assert [(r["name"], r["reason"]) for r in done.report["results"] if r["status"] == "SKIP"] == [
        ("picky", "not reached within --max-time 1.5s"),
        ("counter", "not reached within --max-time 1.5s"),
    ]
    assert "fuzz: --max-time 1.5s ran out; not reached: picky, counter" in done.out
    assert done.report["settings"]["max_time_s"] == 1.5


def test_the_report_replays_with_the_same_inputs(probe: Callable[..., Probed]) -> None:
    server = target("--only", "ok,picky")
    first = probe("fuzz", "--server", server, "--runs", "20")
    settings = first.report["settings"]
    assert settings["runs"] == 20 and settings["timeout_s"] == 15
    assert f"--seed {settings['seed']}" in settings["replay"]
    again = probe("fuzz", "--server", server, "--runs", "20", "--seed", str(settings["seed"]))
    sent = [[step["request"] for step in result["steps"]] for result in first.report["results"]]
    assert sent == [[step["request"] for step in result["steps"]] for result in again.report["results"]]
    assert len(sent[1]) == 20 and all(step["tool"] == "picky" for step in sent[1])
    other = probe("fuzz", "--server", server, "--runs", "20", "--seed", str(settings["seed"] + 1))
    assert sent != [[step["request"] for step in result["steps"]] for result in other.report["results"]]


def test_each_input_is_a_step_with_its_answer_and_class(probe: Callable[..., Probed]) -> None:
    done = probe(
        "fuzz", "--server", target("--only", "picky,hang"), "--seed", "2", "--runs", "6", "--timeout", "1s"
    )
    hang, picky = done.report["results"]
    classes = {step["checks"][0] for step in picky["steps"]}
    assert classes <= {"passed", "rejected"} and "rejected" in classes
    rejected = next(step for step in picky["steps"] if step["checks"] == ["rejected"])
    assert rejected["response"]["content"][0]["text"] == "count must be an integer from 1 to 10"
    assert rejected["is_error"] is True
    assert hang["failure"]["message"].startswith(
        "tools/call hang: no answer within 1s"
    )  # not "timeout: timeout:"
    assert hang["steps"][0]["response"] == {
        "failure": "timeout",
        "message": "tools/call hang: no answer within 1s",
    }
