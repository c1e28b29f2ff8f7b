"""The synchronous run (`run/in_order.py`) reports what the scheduler's one-job run reports."""

from dataclasses import replace
from pathlib import Path

import anyio
import pytest

from toolproof.model.events import Event, RunFinished, RunStopped
from toolproof.model.result import CaseResult, Status
from toolproof.run.in_order import run_in_order
from toolproof.run.scheduler import Slot, run_all

STATUSES = [Status.PASS, Status.FAIL, Status.PASS, Status.ERROR, Status.PASS]


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def handle(self, event: Event) -> None:
        self.events.append(event)


def results_of(index: int) -> list[CaseResult]:
    """Two results per item (as `check` gives one per check), the second with the item's status."""
    file = Path("s.yaml")
    return [
        CaseResult(name=f"c{index} a", file=file, status=Status.PASS),
        CaseResult(name=f"c{index} b", file=file, status=STATUSES[index]),
    ]


def timeless(events: list[Event]) -> list[Event]:
    return [replace(event, duration_s=0.0) if isinstance(event, RunFinished) else event for event in events]


@pytest.mark.parametrize("maxfail", [0, 1, 2, 3])
def test_the_events_are_the_one_job_schedulers(maxfail: int) -> None:
    async def execute(index: int, slot: Slot) -> list[CaseResult]:
        return results_of(index)

    scheduled, in_order = Recorder(), Recorder()
    expected = anyio.run(
        lambda: run_all(range(5), execute, str, jobs=1, sink=scheduled, title="t", maxfail=maxfail)
    )
    got = run_in_order(range(5), results_of, str, sink=in_order, title="t", maxfail=maxfail)
    assert got == expected
    assert timeless(in_order.events) == timeless(scheduled.events)


def test_an_error_ends_the_run_with_what_finished_and_why() -> None:
    def execute(index: int) -> list[CaseResult]:
        if index == 2:
            raise RuntimeError("boom")
        return results_of(index)

    sink = Recorder()
    with pytest.raises(RuntimeError):
        run_in_order(range(5), execute, str, sink=sink)
    assert sink.events[-2] == RunStopped("by RuntimeError: boom", 3)
    finished = sink.events[-1]
    assert isinstance(finished, RunFinished) and [r.name for r in finished.results][-1] == "c1 b"


def test_ctrl_c_stops_the_run_when_cancelled() -> None:
    def execute(index: int) -> list[CaseResult]:
        if index == 1:
            raise KeyboardInterrupt
        return results_of(index)

    sink = Recorder()
    with pytest.raises(KeyboardInterrupt):
        run_in_order(range(3), execute, str, sink=sink)
    assert sink.events[-2] == RunStopped("when cancelled", 2)
