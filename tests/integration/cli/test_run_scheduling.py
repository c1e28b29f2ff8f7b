"""Keeping the cores busy on real servers: a case that only waits (for late notifications, or on a server that
sits idle) gives its slot to the next one, and a run with a state directory starts the cases that were slowest
last time first. Each case has a server identity of its own: cases of one identity keep the suite's order
(`run/side_by_side.py`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import anyio

from toolproof import api
from toolproof.api import Reports
from toolproof.model.events import CaseFinished, CaseStarted, Event
from toolproof.run.server_suite import run_server_suite
from toolproof.sources.options import ServerOptions

WAITS = """\
name: logging waits its grace period
server: {command: mcp-server-everything}
assert_logging: {set_level: debug, expect: {min_messages: 0}}
"""
ECHO = """\
name: {name}
server: {{command: mcp-server-everything, env: {{CASE: "{name}"}}}}
assert: {{tool: echo, args: {{message: hi}}, expect: {{contains: [hi]}}}}
"""


class Events:
    def __init__(self) -> None:
        self.seen: list[Event] = []

    def handle(self, event: Event) -> None:
        self.seen.append(event)

    def finished(self) -> list[str]:
        return [event.result.name for event in self.seen if isinstance(event, CaseFinished)]

    def started(self) -> list[str]:
        return [event.name for event in self.seen if isinstance(event, CaseStarted)]


def test_a_case_waiting_for_late_notifications_lets_the_next_case_run(tmp_path: Path) -> None:
    (tmp_path / "1.yaml").write_text(WAITS)
    (tmp_path / "2.yaml").write_text(ECHO.format(name="echo"))
    collection = api.collect_suite([tmp_path])
    options = ServerOptions(environ=dict(os.environ), notification_grace_s=3.0)
    events = Events()

    async def main() -> None:
        await run_server_suite(collection.items, options, jobs=1, sink=events)

    anyio.run(main)
    # one job: the echo case starts only once the logging case gave up its slot, and ends within its wait
    assert events.started() == ["logging waits its grace period", "echo"]
    assert events.finished() == ["echo", "logging waits its grace period"]


IDLE = """\
name: a long operation on an idle server
server: {command: mcp-server-everything}
assert: {tool: trigger-long-running-operation, args: {duration: 3, steps: 1}, expect: {not_error: true}}
"""


def test_a_case_whose_server_sits_idle_lets_the_next_case_run(tmp_path: Path) -> None:
    (tmp_path / "1.yaml").write_text(IDLE)
    (tmp_path / "2.yaml").write_text(ECHO.format(name="echo"))
    collection = api.collect_suite([tmp_path])
    events = Events()

    async def main() -> None:
        await run_server_suite(collection.items, ServerOptions(environ=dict(os.environ)), jobs=1, sink=events)

    anyio.run(main)
    # one job: the server sleeps through its 3 s operation, so the echo case runs meanwhile and ends first
    assert events.started() == ["a long operation on an idle server", "echo"]
    assert events.finished() == ["echo", "a long operation on an idle server"]
    verdicts = [event.result.status.value for event in events.seen if isinstance(event, CaseFinished)]
    assert verdicts == ["PASS", "PASS"]


def test_a_run_with_a_state_directory_starts_last_runs_slowest_case_first(tmp_path: Path) -> None:
    suite, state = tmp_path / "suite", tmp_path / "state"
    suite.mkdir()
    for number in range(3):
        (suite / f"{number}.yaml").write_text(ECHO.format(name=f"echo {number}"))
    first = api.run_suite([suite], jobs=2, reports=Reports(state_dir=state))
    recorded = json.loads((state / "durations.json").read_text())["seconds"]
    assert set(recorded) == {f"{suite / f'{n}.yaml'}::echo {n}" for n in range(3)}
    assert all(seconds > 0 for seconds in recorded.values())

    recorded[f"{suite / '2.yaml'}::echo 2"] = 60.0  # as if the last case had been slow last time
    (state / "durations.json").write_text(json.dumps({"seconds": recorded}))
    events = Events()
    second = api.run_suite([suite], jobs=2, reports=Reports(state_dir=state), sink=events)
    assert events.started()[0] == "echo 2"
    in_suite_order = ["echo 0", "echo 1", "echo 2"]
    assert [r.name for r in second.results] == [r.name for r in first.results] == in_suite_order
    rewritten = json.loads((state / "durations.json").read_text())["seconds"]
    assert rewritten[f"{suite / '2.yaml'}::echo 2"] < 60.0  # this run's duration replaces it
