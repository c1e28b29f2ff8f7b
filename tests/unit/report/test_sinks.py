"""Broadcast isolates a failing sink; write_best_effort never raises."""

from __future__ import annotations

import io
from pathlib import Path

from toolproof.core.writing import warn, write_best_effort
from toolproof.model.events import Event, RunFinished, RunStarted
from toolproof.report.sinks import Broadcast


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def handle(self, event: Event) -> None:
        self.events.append(event)


class Exploding:
    def __init__(self) -> None:
        self.calls = 0

    def handle(self, event: Event) -> None:
        self.calls += 1
        raise RuntimeError("boom \x1b[31m")


def test_broadcast_forwards_every_event_to_every_sink_in_turn() -> None:
    first, second = Recorder(), Recorder()
    events: list[Event] = [RunStarted(total=0), RunFinished()]
    broadcast = Broadcast([first, second], stderr=io.StringIO())
    for event in events:
        broadcast.handle(event)
    assert first.events == events and second.events == events


def test_a_raising_sink_warns_once_and_is_disabled() -> None:
    before, bad, after = Recorder(), Exploding(), Recorder()
    stderr = io.StringIO()
    broadcast = Broadcast([before, bad, after], stderr=stderr)
    broadcast.handle(RunStarted(total=0))
    broadcast.handle(RunFinished())
    assert bad.calls == 1
    assert len(before.events) == 2 and len(after.events) == 2
    assert stderr.getvalue() == (
        "toolproof: the Exploding report failed and is off for this run: RuntimeError: boom \n"
    )


def test_write_best_effort_creates_parent_directories(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "out.txt"
    assert write_best_effort(path, "héllo\n") is True
    assert path.read_text(encoding="utf-8") == "héllo\n"


def test_write_best_effort_warns_and_returns_false(tmp_path: Path) -> None:
    stderr = io.StringIO()
    assert write_best_effort(tmp_path, "x", stderr=stderr) is False  # a directory
    (tmp_path / "file").write_text("", encoding="utf-8")
    assert write_best_effort(tmp_path / "file" / "x.txt", "x", stderr=stderr) is False
    first, second = stderr.getvalue().splitlines()
    assert first == f"toolproof: could not write {tmp_path}: Is a directory"
    assert second.startswith(f"toolproof: could not write {tmp_path / 'file' / 'x.txt'}: ")


def test_warn_survives_a_closed_stderr() -> None:
    stderr = io.StringIO()
    stderr.close()
    warn("nobody hears this", stderr)
