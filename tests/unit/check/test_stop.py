"""A run that stopped early fails first, whether it was observed live or read back from a saved trace."""

from __future__ import annotations

from pathlib import Path

from toolproof.check.stop import recorded_stop, with_stop
from toolproof.model.result import CaseResult, FailureKind, Status
from toolproof.model.transcript import RunStop, Transcript

PASSED = CaseResult(name="c", file=Path("c.yaml"), status=Status.PASS)


def test_a_run_without_a_stop_keeps_its_verdict() -> None:
    assert recorded_stop(Transcript()) is None
    assert with_stop(PASSED, None) is PASSED


def test_a_recorded_stop_fails_a_passing_run_with_its_kind_and_reason() -> None:
    stop = RunStop(reason="max_steps", kind=FailureKind.EXPECTATION, turn=1, message="no final answer")
    failure = recorded_stop(Transcript(stop=stop))
    assert failure is not None
    assert (failure.kind, failure.check) == (FailureKind.EXPECTATION, "max_steps")
    assert failure.message == "no final answer"
    assert failure.details == {
        "stop": {"reason": "max_steps", "kind": "expectation", "turn": 1, "message": "no final answer"}
    }
    result = with_stop(PASSED, failure)
    assert result.status is Status.FAIL and result.failure == failure


def test_a_stop_without_a_reason_is_named_by_its_kind_alone() -> None:
    failure = recorded_stop(Transcript(stop=RunStop(kind=FailureKind.TIMEOUT, message="turn 2: no answer")))
    assert failure is not None and failure.check is None
    assert (failure.kind, failure.message) == (FailureKind.TIMEOUT, "turn 2: no answer")
