"""A case run as several trials tells each trial's verdict as it comes (`TrialFinished`), before its one
combined result, on a real server."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from toolproof.load import load_file
from toolproof.model.events import CaseFinished, Event, TrialFinished
from toolproof.model.result import Status
from toolproof.run.server_suite import run_server_suite
from toolproof.sources.options import ServerOptions

QUICKSTART = Path(__file__).resolve().parents[3] / "examples" / "quickstart" / "01_tiny_tools.yaml"


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def handle(self, event: Event) -> None:
        self.events.append(event)


def test_each_trial_is_told_before_the_case_result(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(QUICKSTART.parents[2])  # the example names its server by a path from the root
    first = load_file(QUICKSTART)[:1]
    sink = Recorder()
    options = ServerOptions(environ=dict(os.environ))
    results = anyio.run(lambda: run_server_suite(first, options, jobs=2, sink=sink, trials=2))
    trials = [event for event in sink.events if isinstance(event, TrialFinished)]
    assert sorted(event.trial for event in trials) == [1, 2]
    assert all(event.trials == 2 and event.result.status is Status.PASS for event in trials)
    finished = [index for index, event in enumerate(sink.events) if isinstance(event, CaseFinished)]
    assert max(sink.events.index(event) for event in trials) < finished[0]
    assert results[0].trials is not None and results[0].trials.n == 2
