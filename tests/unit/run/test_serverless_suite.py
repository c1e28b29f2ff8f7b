"""A suite none of whose cases starts a server runs in order without an event loop, and says exactly what the
concurrent run says: the same terminal, JSON and JUnit reports (but for times), verdicts and exit status."""

from __future__ import annotations

import os
import re
import signal
import textwrap
from pathlib import Path

import pytest

from toolproof.api.results import Collection
from toolproof.cli import main
from toolproof.load import load_file
from toolproof.model.events import CaseStarted, Event, RunFinished, RunStopped
from toolproof.run.interrupt import Interrupted
from toolproof.run.serverless_suite import run_serverless_suite
from toolproof.sources.options import ServerOptions

ROOT = Path(__file__).resolve().parents[3]
TRAJECTORIES = ROOT / "examples" / "blocks" / "trajectory"
SKIPPED = ROOT / "bench" / "startup" / "skipped.yaml"

MIXED = """
name: calls the wrong tool first
trace:
  - tool: rename
    args: {name: b}
  - tool: prepare_rename
trajectory:
  - type: order
    tools: [prepare_rename, rename]
---
name: skipped trajectory
skip: true
trace: [{tool: a}]
trajectory: [{type: presence, tools: [a]}]
---
name: broken
trace: [{tool: a}]
trajectory: [{type: no_such_check}]
---
name: reads a log that is not there
audit_log: missing.jsonl
trajectory: [{type: presence, tools: [a]}]
"""

TIMES = [
    (re.compile(r"\b\d+(\.\d+)?(ms|s)\b"), "T"),
    (re.compile(r'"(duration_ms|duration_s|created_at)": [^,\n]+'), r'"\1": T'),
    (re.compile(r'\b(time|timestamp)="[^"]*"'), r'\1="T"'),
]


def _timeless(text: str) -> str:
    for pattern, replacement in TIMES:
        text = pattern.sub(replacement, text)
    return text


def _run(args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str, str]:
    """The exit status, terminal report, JSON and JUnit of `toolproof run ARGS`, times blanked."""
    json, junit = tmp_path / "report.json", tmp_path / "report.xml"
    status = main(["run", *args, "--json", str(json), "--junit", str(junit)])
    shown = capsys.readouterr()
    terminal, report, junit_report = (
        _timeless(text) for text in (shown.out + shown.err, json.read_text(), junit.read_text())
    )
    return status, terminal, report, junit_report


SUITES = [
    [str(TRAJECTORIES)],
    [str(SKIPPED)],
    [str(TRAJECTORIES), str(SKIPPED), "mixed.yaml"],
    ["mixed.yaml", "--maxfail", "1"],
    ["mixed.yaml", str(TRAJECTORIES), "-v"],
]


@pytest.mark.parametrize("args", SUITES, ids=["trajectories", "skipped", "mixed", "maxfail", "verbose"])
def test_a_serverless_suite_reports_what_the_concurrent_run_reports(
    args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "mixed.yaml").write_text(textwrap.dedent(MIXED))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    in_order = _run(args, tmp_path, capsys)
    monkeypatch.setattr(Collection, "starts_no_server", property(lambda self: False))
    concurrent = _run(args, tmp_path, capsys)
    assert in_order == concurrent
    assert '"status": ' in in_order[2]  # some case was reported


def test_only_a_suite_without_server_cases_runs_in_order(tmp_path: Path) -> None:
    suite = tmp_path / "mixed.yaml"
    suite.write_text(textwrap.dedent(MIXED))
    assert Collection(tuple(load_file(suite))).starts_no_server
    assert Collection(tuple(load_file(SKIPPED))).starts_no_server
    server = tmp_path / "server.yaml"
    server.write_text("name: calls\nserver: {command: echo}\nassert: {tool: x}\n")
    assert not Collection(tuple([*load_file(suite), *load_file(server)])).starts_no_server
    unless = tmp_path / "unless.yaml"  # whether it runs is decided by the environment, when it runs
    unless.write_text("name: calls\nskip_unless_env: TOKEN\nserver: {command: echo}\nassert: {tool: x}\n")
    assert not Collection(tuple(load_file(unless))).starts_no_server


class Stopping:
    """A sink that records the events and sends this process SIGTERM when the first case starts."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def handle(self, event: Event) -> None:
        self.events.append(event)
        if isinstance(event, CaseStarted):
            os.kill(os.getpid(), signal.SIGTERM)


def test_a_stop_signal_ends_the_run_and_reports_its_end(tmp_path: Path) -> None:
    suite = tmp_path / "mixed.yaml"
    suite.write_text(textwrap.dedent(MIXED))
    sink = Stopping()
    former = signal.getsignal(signal.SIGTERM)
    outcome = run_serverless_suite(
        load_file(suite), ServerOptions(environ={}), sink=sink, handle_signals=True
    )
    assert outcome == Interrupted(signal.SIGTERM)
    assert signal.getsignal(signal.SIGTERM) is former
    stopped, finished = sink.events[-2:]
    assert isinstance(stopped, RunStopped) and stopped.reason == "when cancelled" and stopped.unfinished == 4
    assert isinstance(finished, RunFinished) and finished.results == []
