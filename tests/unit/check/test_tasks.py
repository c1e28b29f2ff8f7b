"""`expect.task` checks: the terminal status (expected or by default), states, duration, message and error
code of a call answered with a task; a call answered at once passes them unless `task:` is expected."""

from __future__ import annotations

from typing import Any

import pytest

from toolproof.check.expect import check_expect
from toolproof.model.observation import Observation, TaskRecord
from toolproof.model.result import Failure, FailureKind
from toolproof.model.server_case import Expect

COMPLETED = TaskRecord(task_id="t1", states=["working", "completed"], status="completed", polls=3,
                       status_message="done", duration_s=0.4)
FAILED = TaskRecord(task_id="t2", states=["working", "failed"], status="failed", polls=2,
                    error={"code": -32603, "message": "crashed"}, status_message="worker crashed")
CANCELLED = TaskRecord(task_id="t3", states=["working", "cancelled"], status="cancelled", polls=3,
                       cancel_sent=True)
FINISHED_FIRST = CANCELLED.model_copy(update={"states": ["working", "completed"], "status": "completed"})


def verdict(task: TaskRecord | None, expect: dict[str, Any] | None = None, text: str = "") -> Failure | None:
    observation = Observation(text=text, task=task)
    return check_expect(Expect.model_validate({"task": expect} if expect is not None else {}), observation)


@pytest.mark.parametrize(
    ("task", "expect"),
    [
        (None, None),  # answered at once, nothing asked of a task
        (COMPLETED, None),  # completed: the default
        (CANCELLED, None),  # cancelled after tasks/cancel: the default then
        (COMPLETED, {"status": "completed", "states": ["working", "completed"], "min_ms": 3, "max_ms": 500}),
        (FAILED, {"status": "failed", "error_code": -32603, "message": "crashed"}),
        (CANCELLED, {"status": "cancelled", "states": ["working", "cancelled"]}),
        (FINISHED_FIRST, {"status": "completed"}),  # cancellation is cooperative: it may finish first
        (COMPLETED, {"message": "do"}),
    ],
)
def test_passes(task: TaskRecord | None, expect: dict[str, Any] | None) -> None:
    assert verdict(task, expect) is None


@pytest.mark.parametrize(
    ("task", "expect", "kind", "check", "message"),
    [
        (None, {}, FailureKind.EXPECTATION, "task", "task: the call was answered at once, not with a task"),
        (FAILED, None, FailureKind.RPC_ERROR, "task.status",
         'task.status: the task t2 ended failed with JSON-RPC error -32603: crashed, expected completed '
         '(states working -> failed in 2 polls, last statusMessage "worker crashed")'),
        (FINISHED_FIRST, None, FailureKind.EXPECTATION, "task.status",
         "task.status: the task t3 ended completed, expected cancelled (states working -> completed in 3 "
         "polls, tasks/cancel sent)"),
        (COMPLETED, {"status": "failed"}, FailureKind.EXPECTATION, "task.status",
         "task.status: the task t1 ended completed, expected failed"),
        (COMPLETED, {"states": ["working", "input_required", "completed"]}, FailureKind.EXPECTATION,
         "task.states", "task.states: expected states working -> input_required -> completed, the task went "
         "working -> completed"),
        (COMPLETED, {"min_ms": 500}, FailureKind.EXPECTATION, "task.min_ms",
         "task.min_ms: the task ended after 400 ms, expected at least 500 ms"),
        (COMPLETED, {"max_ms": 100}, FailureKind.EXPECTATION, "task.max_ms",
         "task.max_ms: the task ended after 400 ms, expected at most 100 ms"),
        (COMPLETED, {"message": "late"}, FailureKind.EXPECTATION, "task.message",
         "task.message: \"late\" not found: the last statusMessage is \"done\""),
        (CANCELLED, {"message": "late"}, FailureKind.EXPECTATION, "task.message",
         "task.message: \"late\" not found: no statusMessage"),
        (FAILED, {"status": "failed", "error_code": -32000}, FailureKind.EXPECTATION, "task.error_code",
         "task.error_code: expected JSON-RPC error -32000, the task ended failed with JSON-RPC error -32603: "
         "crashed"),
    ],
)
def test_fails(
    task: TaskRecord | None, expect: dict[str, Any] | None, kind: FailureKind, check: str, message: str
) -> None:
    failure = verdict(task, expect)
    assert failure is not None
    assert (failure.kind, failure.check) == (kind, check)
    assert failure.message.startswith(message)


def test_the_task_is_checked_before_the_result_it_left() -> None:
    failure = verdict(CANCELLED, {"status": "completed"}, text="")
    assert failure is not None and failure.check == "task.status"
    text_failure = check_expect(Expect(contains=["Report"]), Observation(text="", task=CANCELLED))
    assert text_failure is not None and text_failure.check == "contains"  # cancelled as the case asked


def test_durations_may_not_be_negative() -> None:
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        Expect.model_validate({"task": {"max_ms": -1}})
