import asyncio
from pathlib import Path

import anyio

from toolproof.model.events import CaseFinished, CaseStarted, Event, RunFinished, RunStarted, RunStopped
from toolproof.model.result import CaseResult, Status
from toolproof.run.scheduler import LIVE_PER_JOB, Slot, run_all


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def handle(self, event: Event) -> None:
        self.events.append(event)


def test_results_keep_input_order_and_concurrency_is_bounded() -> None:
    running = 0
    peak = 0
    delays = [0.05, 0.01, 0.03, 0.0, 0.02]

    async def execute(index: int, slot: Slot) -> CaseResult:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await anyio.sleep(delays[index])
        running -= 1
        return CaseResult(name=f"c{index}", file=Path("s.yaml"), status=Status.PASS)

    sink = Recorder()
    results = anyio.run(lambda: run_all(range(5), execute, str, jobs=2, sink=sink))
    assert [r.name for r in results] == ["c0", "c1", "c2", "c3", "c4"]
    assert peak == 2
    assert isinstance(sink.events[0], RunStarted) and sink.events[0].total == 5
    assert isinstance(sink.events[-1], RunFinished) and len(sink.events[-1].results) == 5
    finished = [e.index for e in sink.events if isinstance(e, CaseFinished)]
    assert sorted(finished) == [0, 1, 2, 3, 4]
    assert finished != [0, 1, 2, 3, 4]  # they really ran out of order
    assert sum(isinstance(e, CaseStarted) for e in sink.events) == 5


def test_a_released_slot_lets_the_next_case_start() -> None:
    running = 0
    peak = 0

    async def execute(index: int, slot: Slot) -> CaseResult:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await anyio.sleep(0.01)
        running -= 1
        slot.release()
        slot.release()  # a second release is harmless
        await anyio.sleep(0.05)  # winding down without a slot
        return CaseResult(name=f"c{index}", file=Path("s.yaml"), status=Status.PASS)

    results = anyio.run(lambda: run_all(range(6), execute, str, jobs=1, sink=Recorder()))
    assert [r.name for r in results] == [f"c{i}" for i in range(6)]
    assert peak == 1


def test_a_cancelled_run_still_reports_the_cases_that_finished() -> None:
    cleaned: list[int] = []

    async def execute(index: int, slot: Slot) -> CaseResult:
        try:
            await anyio.sleep(0 if index == 0 else 60)
        finally:
            cleaned.append(index)
        return CaseResult(name=f"c{index}", file=Path("s.yaml"), status=Status.PASS)

    async def main() -> None:
        with anyio.move_on_after(0.2):
            await run_all(range(3), execute, str, jobs=3, sink=sink)
            raise AssertionError("the run should have been cancelled")

    sink = Recorder()
    anyio.run(main)
    finished = sink.events[-1]
    assert isinstance(finished, RunFinished)
    assert [r.name for r in finished.results] == ["c0"]
    assert sorted(cleaned) == [0, 1, 2]


def test_with_expected_seconds_the_longest_cases_start_first() -> None:
    started: list[int] = []
    expected = {0: 0.0, 1: 5.0, 2: 0.5, 3: 5.0, 4: 0.0}

    async def execute(index: int, slot: Slot) -> CaseResult:
        started.append(index)
        await anyio.sleep(0)
        return CaseResult(name=f"c{index}", file=Path("s.yaml"), status=Status.PASS)

    results = anyio.run(
        lambda: run_all(range(5), execute, str, jobs=2, sink=Recorder(), expected_s=expected.__getitem__)
    )
    assert started == [1, 3, 2, 0, 4]  # longest first, ties in suite order
    assert [r.name for r in results] == [f"c{i}" for i in range(5)]  # reported in suite order


def test_one_job_keeps_the_suite_order_whatever_is_expected() -> None:
    started: list[int] = []

    async def execute(index: int, slot: Slot) -> CaseResult:
        started.append(index)
        return CaseResult(name=f"c{index}", file=Path("s.yaml"), status=Status.PASS)

    anyio.run(lambda: run_all(range(3), execute, str, jobs=1, sink=Recorder(), expected_s=lambda i: float(i)))
    assert started == [0, 1, 2]


def test_cases_that_gave_up_their_slot_are_still_bounded() -> None:
    alive = 0
    peak = 0

    async def execute(index: int, slot: Slot) -> CaseResult:
        nonlocal alive, peak
        alive += 1
        peak = max(peak, alive)
        slot.release()  # it only waits from here on
        await anyio.sleep(0.02)
        alive -= 1
        return CaseResult(name=f"c{index}", file=Path("s.yaml"), status=Status.PASS)

    anyio.run(lambda: run_all(range(40), execute, str, jobs=2, sink=Recorder()))
    assert peak == 2 * LIVE_PER_JOB


def test_a_case_has_a_task_only_once_it_may_start() -> None:
    tasks: list[int] = []

    async def execute(index: int, slot: Slot) -> CaseResult:
        tasks.append(len(asyncio.all_tasks()))
        slot.release()
        await anyio.sleep(0.01)
        return CaseResult(name=f"c{index}", file=Path("s.yaml"), status=Status.PASS)

    results = anyio.run(lambda: run_all(range(200), execute, str, jobs=2, sink=Recorder()))
    assert len(results) == 200
    # the cases under way (at most 2 * LIVE_PER_JOB) and the run's own task, never one per case
    assert max(tasks) <= 2 * LIVE_PER_JOB + 1


def test_a_run_stopped_by_maxfail_says_so_before_it_finishes() -> None:
    async def execute(index: int, slot: Slot) -> CaseResult:
        await anyio.sleep(0 if index == 0 else 5)
        return CaseResult(name=f"c{index}", file=Path("s.yaml"), status=Status.FAIL)

    sink = Recorder()
    anyio.run(lambda: run_all(range(4), execute, str, jobs=2, sink=sink, maxfail=1))
    stopped = [event for event in sink.events if isinstance(event, RunStopped)]
    assert stopped == [RunStopped("after 1 failure (-x/--maxfail)", 3)]
    assert sink.events.index(stopped[0]) == len(sink.events) - 2  # just before RunFinished


def test_a_cancelled_run_says_so_and_a_whole_run_does_not() -> None:
    async def execute(index: int, slot: Slot) -> CaseResult:
        await anyio.sleep(0 if index == 0 else 60)
        return CaseResult(name=f"c{index}", file=Path("s.yaml"), status=Status.PASS)

    async def cancelled(sink: Recorder) -> None:
        with anyio.move_on_after(1):
            await run_all(range(3), execute, str, jobs=3, sink=sink)

    stopped, whole = Recorder(), Recorder()
    anyio.run(cancelled, stopped)
    assert [e for e in stopped.events if isinstance(e, RunStopped)] == [RunStopped("when cancelled", 2)]
    anyio.run(lambda: run_all(range(1), execute, str, jobs=1, sink=whole))
    assert not any(isinstance(e, RunStopped) for e in whole.events)


def test_a_run_cancelled_while_it_prepares_still_says_it_started_and_stopped() -> None:
    """`prepare` (deciding the turns before the start order) runs inside the run: stopped there, the run still
    reports its start, that none of its cases finished, and its end."""

    async def execute(index: int, slot: Slot) -> CaseResult:
        return CaseResult(name=f"c{index}", file=Path("s.yaml"), status=Status.PASS)

    async def cancelled(sink: Recorder) -> None:
        with anyio.move_on_after(0.05):
            await run_all(range(2), execute, str, jobs=2, sink=sink, prepare=lambda: anyio.sleep(60))

    sink = Recorder()
    anyio.run(cancelled, sink)
    assert isinstance(sink.events[0], RunStarted)
    assert sink.events[1:-1] == [RunStopped("when cancelled", 2)]
    assert isinstance(sink.events[-1], RunFinished)
