"""`expect.task` checks on a tool call answered with a task (2026-07-28 tasks extension), each a row of
`check/expect.py`'s table: pure functions of (Expect, Observation) that look at one field of `expect.task`.

`check_task_status` also runs without `expect.task`: a task that did not end as it should (completed, or
cancelled when the case cancelled it) fails the case, as a JSON-RPC error does a call answered at once.
"""

from __future__ import annotations

from toolproof.check.failures import fail, listed
from toolproof.core.gofmt import quote
from toolproof.model.observation import Observation, TaskRecord
from toolproof.model.result import Failure, FailureKind
from toolproof.model.server_case import Expect

NOT_A_TASK = (
    "the call was answered at once, not with a task (the server made none, or the session speaks the "
    "2025-11-25 era, where the tasks extension is not defined)"
)


def _story(task: TaskRecord) -> str:
    """What the task went through, for a message."""
    polls = "poll" if task.polls == 1 else "polls"
    said = f", last statusMessage {quote(task.status_message, 120)}" if task.status_message else ""
    cancelled = ", tasks/cancel sent" if task.cancel_sent else ""
    return f"states {' -> '.join(task.states)} in {task.polls} {polls}{cancelled}{said}"


def _ended(task: TaskRecord) -> str:
    if task.status == "failed" and task.error is not None:
        return f"failed with JSON-RPC error {task.error.get('code')}: {task.error.get('message')}"
    return task.status


def check_task_status(expect: Expect, obs: Observation) -> Failure | None:
    """The terminal status: `task.status`, or else completed (cancelled when the case sent tasks/cancel)."""
    task, wanted = obs.task, expect.task.status if expect.task else None
    if task is None:
        return None if expect.task is None else fail("task", NOT_A_TASK, "a task", "a result at once")
    wanted = wanted or ("cancelled" if task.cancel_sent else "completed")
    if task.status == wanted:
        return None
    failed_unexpectedly = task.status == "failed" and (expect.task is None or expect.task.status is None)
    kind = FailureKind.RPC_ERROR if failed_unexpectedly else FailureKind.EXPECTATION
    message = f"the task {task.task_id} ended {_ended(task)}, expected {wanted} ({_story(task)})"
    return fail("task.status", message, wanted, task.status, kind=kind)


def check_task_states(expect: Expect, obs: Observation) -> Failure | None:
    """Every status seen, in order (repeats in a row once), equals `task.states`."""
    wanted = expect.task.states if expect.task else None
    if wanted is None or obs.task is None or obs.task.states == wanted:
        return None
    message = f"expected states {' -> '.join(wanted)}, the task went {' -> '.join(obs.task.states)}"
    return fail("task.states", message, wanted, obs.task.states)


def _duration(check: str, limit: float | None, obs: Observation, *, at_least: bool) -> Failure | None:
    """The task took at least (or at most) `limit` ms from the call to its end."""
    if limit is None or obs.task is None:
        return None
    took = obs.task.duration_s * 1000
    if (took >= limit) if at_least else (took <= limit):
        return None
    bound = "at least" if at_least else "at most"
    return fail(check, f"the task ended after {took:.0f} ms, expected {bound} {limit:g} ms", limit, took)


def check_task_min_ms(expect: Expect, obs: Observation) -> Failure | None:
    return _duration("task.min_ms", expect.task.min_ms if expect.task else None, obs, at_least=True)


def check_task_max_ms(expect: Expect, obs: Observation) -> Failure | None:
    return _duration("task.max_ms", expect.task.max_ms if expect.task else None, obs, at_least=False)


def check_task_message(expect: Expect, obs: Observation) -> Failure | None:
    """The last statusMessage contains `task.message`."""
    needle = expect.task.message if expect.task else None
    if needle is None or obs.task is None or needle in (obs.task.status_message or ""):
        return None
    said = obs.task.status_message
    shown = f"the last statusMessage is {quote(said, 200)}" if said is not None else "no statusMessage"
    return fail("task.message", f"{listed([needle])} not found: {shown}", needle, said)


def check_task_error_code(expect: Expect, obs: Observation) -> Failure | None:
    """A failed task's JSON-RPC error has code `task.error_code`."""
    code = expect.task.error_code if expect.task else None
    if code is None or obs.task is None:
        return None
    got = (obs.task.error or {}).get("code")
    if got == code:
        return None
    message = f"expected JSON-RPC error {code}, the task ended {_ended(obs.task)}"
    return fail("task.error_code", message, code, got)
