"""A run that stopped early fails first, whether it was observed live or read back from a saved trace."""

from __future__ import annotations

from pathlib import Path

from toolproof.check.stop import recorded_stop, with_recorded_stop, with_stop
from toolproof.model.result import CaseResult, Failure, FailureKind, Status
from toolproof.model.transcript import Transcript

PASSED = CaseResult(name="c", file=Path("c.yaml"), status=Status.PASS)


def test_a_run_without_a_stop_keeps_its_verdict() -> None:
    assert recorded_stop(Transcript()) is None
    assert with_stop(PASSED, None) is PASSED


def test_a_recorded_stop_fails_a_passing_run_with_its_kind_and_reason() -> None:
    stop = {"reason": "max_steps", "kind": "expectation", "message": "no final answer"}
    failure = recorded_stop(Transcript(metadata={"stop": stop}))
    assert failure is not None
    assert (failure.kind, failure.check) == (FailureKind.EXPECTATION, "max_steps")
    assert failure.message == "no final answer"
    result = with_stop(PASSED, failure)
    assert result.status is Status.FAIL and result.failure == failure


def test_a_stop_observed_apart_from_the_run_travels_with_it() -> None:
    failure = Failure(kind=FailureKind.TRANSPORT, message="turn 2: HTTP 502")
    carried = with_recorded_stop(Transcript(), failure)
    read_back = recorded_stop(carried)
    assert read_back is not None and (read_back.kind, read_back.message) == (failure.kind, failure.message)
    assert with_recorded_stop(carried, Failure(kind=FailureKind.TIMEOUT, message="later")) is carried
    assert with_recorded_stop(Transcript(), None) == Transcript()


def test_an_unknown_kind_is_read_as_a_transport_failure() -> None:
    failure = recorded_stop(Transcript(metadata={"stop": {"kind": "weird"}}))
    assert failure is not None and failure.kind is FailureKind.TRANSPORT
    assert failure.message == "the run stopped early"
