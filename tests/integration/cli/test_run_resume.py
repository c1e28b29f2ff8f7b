"""`--resume FILE`: a run stopped by a signal is finished by a second run that runs only the cases the first
did not finish, and reports them beside the finished ones, in suite order, as one run."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from toolproof.cli import main

ROOT = Path(__file__).resolve().parents[3]
TINY = ROOT / "examples" / "servers" / "tiny_server.py"
SLOW = ROOT / "tests" / "servers" / "slow_server.py"

pytestmark = pytest.mark.servers


def _results(path: Path) -> dict[str, dict[str, Any]]:
    return {entry["name"]: entry for entry in json.loads(path.read_text())["results"]}


def test_a_stopped_run_is_finished_by_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "a_quick.yaml").write_text(
        f"name: quick\nserver: {{command: {sys.executable}, args: [{TINY}]}}\n"
        "assert: {tool: echo, args: {text: fine}, expect: {equals: fine}}\n"
    )
    (suite / "b_slow.yaml").write_text(
        textwrap.dedent(
            f"""\
            name: slow
            server: {{command: {sys.executable}, args: [{SLOW}, --delay, "4"]}}
            assert: {{tool: work, args: {{label: x}}, expect: {{equals: done x}}}}
            """
        )
    )
    stopped = tmp_path / "stopped.json"
    argv = [sys.executable, "-m", "toolproof", "run", str(suite), "-j", "2", "--json", str(stopped)]
    with subprocess.Popen(
        argv, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as run:
        assert run.stdout is not None
        first = run.stdout.readline()  # the quick case, while the slow one waits for its answer
        run.send_signal(signal.SIGINT)
        run.communicate(timeout=30)
    assert first.startswith("PASS  quick") and run.returncode == 130
    assert list(_results(stopped)) == ["quick"]

    whole = tmp_path / "whole.json"
    assert main(["run", str(suite), "--resume", str(stopped), "--json", str(whole), "-q"]) == 0
    capsys.readouterr()
    results = _results(whole)
    assert [(name, entry["status"]) for name, entry in results.items()] == [
        ("quick", "PASS"),
        ("slow", "PASS"),
    ]
    assert results["quick"] == _results(stopped)["quick"]  # carried over, not run again
    assert results["slow"]["duration_ms"] >= 4000


def test_resuming_a_finished_run_runs_nothing_and_keeps_its_verdicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    quickstart = ROOT / "examples" / "quickstart" / "01_tiny_tools.yaml"
    first = tmp_path / "first.json"
    assert main(["run", str(quickstart), "-k", "echo or add", "--json", str(first), "-q"]) == 0
    capsys.readouterr()
    assert main(["run", str(quickstart), "--resume", str(first), "--collect-only"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert [line.split("::")[1] for line in listed] == [
        "describe lists its arguments in order",
        "fail reports a tool error, not a crash",
    ]
    again = tmp_path / "again.json"
    assert (
        main(["ci", str(quickstart), "-k", "echo or add", "--resume", str(first), "--json", str(again)]) == 0
    )
    assert _results(again) == _results(first)


def test_a_resume_file_that_is_no_report_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    quickstart = ROOT / "examples" / "quickstart" / "01_tiny_tools.yaml"
    assert main(["run", str(quickstart), "--resume", str(broken)]) == 2
    assert f"--resume {broken}: not JSON" in capsys.readouterr().err


def test_eval_resumes_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    live = ROOT / "examples" / "agent" / "live"
    args = ["eval", str(live), "--config", str(live / "toolproof.yaml"), "-q"]
    first, again = tmp_path / "first.json", tmp_path / "again.json"
    assert main([*args, "--json", str(first)]) == 0
    assert main([*args, "--resume", str(first), "--json", str(again)]) == 0
    capsys.readouterr()
    assert _results(again) == _results(first)  # the one case finished: carried over, not run again
