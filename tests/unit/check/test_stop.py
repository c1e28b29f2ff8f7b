"""A run that stopped early fails first, whether it was observed live or read back from a saved trace, and
whether it is an agent run or a server case's exchange."""

from __future__ import annotations

from pathlib import Path

from toolproof.check.stop import with_stop
from toolproof.model.result import CaseResult, Failure, FailureKind, Status
from toolproof.model.transcript import RunStop, Transcript
from toolproof.sources.server import ServerExchange

PASSED = CaseResult(name="c", file=Path("c.yaml"), status=Status.PASS)


def test_a_run_without_a_stop_keeps_its_verdict() -> None:
    assert Transcript().stopped is None
    assert with_stop(PASSED, Transcript()) is PASSED


def test_a_recorded_stop_fails_a_passing_run_with_its_kind_and_reason() -> None:
    stop = RunStop(reason="max_steps", kind=FailureKind.EXPECTATION, turn=1, message="no final answer")
    run = Transcript(stop=stop)
    failure = run.stopped
    assert failure is not None
    assert (failure.kind, failure.check) == (FailureKind.EXPECTATION, "max_steps")
    assert failure.message == "no final answer"
    assert failure.details == {
        "stop": {"reason": "max_steps", "kind": "expectation", "turn": 1, "message": "no final answer"}
    }
    result = with_stop(PASSED, run)
    assert result.status is Status.FAIL and result.failure == failure


def test_a_stop_without_a_reason_is_named_by_its_kind_alone() -> None:
    failure = Transcript(stop=RunStop(kind=FailureKind.TIMEOUT, message="turn 2: no answer")).stopped
    assert failure is not None and failure.check is None
    assert (failure.kind, failure.message) == (FailureKind.TIMEOUT, "turn 2: no answer")


def test_a_server_exchange_that_stopped_fails_by_the_same_rule() -> None:
    timeout = Failure(kind=FailureKind.TIMEOUT, message="no answer within 5s")
    exchange = ServerExchange(observation=None, failure=timeout, stderr="", phases={})
    assert exchange.stopped is timeout
    failed = with_stop(PASSED.model_copy(update={"failure": None}), exchange)
    assert failed.status is Status.FAIL and failed.failure == timeout
