"""Call classes: one table of outcomes and the class each gets, for valid (audit) and hostile (fuzz) input."""

from __future__ import annotations

import math
from typing import Any

import pytest

from toolproof.model.result import Failure, FailureKind
from toolproof.probe.outcome import CallOutcome
from toolproof.probe.verdicts import STEP_CHARS, CallClass, call_step, classify, describe, verdict_message


def result(text: str, *, error: bool = False) -> CallOutcome:
    return CallOutcome({"content": [{"type": "text", "text": text}], "isError": error}, None, 0.01)


def failed(kind: FailureKind, **details: Any) -> CallOutcome:
    return CallOutcome(None, Failure(kind=kind, message=f"{kind.value} happened", details=details), 0.01)


CASES = [
    ("a result", result("fine"), CallClass.HEALTHY, CallClass.PASSED),
    ("an explained isError", result("count must be positive", error=True), CallClass.HEALTHY,
     CallClass.REJECTED),
    ("isError with a traceback", result("Traceback (most recent call last):", error=True), CallClass.CRASH,
     CallClass.CRASH),
    ("isError with a Go panic", result("panic: runtime error", error=True), CallClass.CRASH, CallClass.CRASH),
    ("isError saying internal error", result("Internal error: x", error=True), CallClass.CRASH,
     CallClass.CRASH),
    ("-32602", failed(FailureKind.RPC_ERROR, code=-32602), CallClass.REJECTS_VALID, CallClass.REJECTED),
    ("-32603", failed(FailureKind.RPC_ERROR, code=-32603), CallClass.CRASH, CallClass.CRASH),
    ("the process exited", failed(FailureKind.TRANSPORT), CallClass.CRASH, CallClass.CRASH),
    ("no answer in time", failed(FailureKind.TIMEOUT), CallClass.TIMEOUT, CallClass.TIMEOUT),
    ("not MCP", failed(FailureKind.PROTOCOL), CallClass.PROTOCOL, CallClass.PROTOCOL),
]  # fmt: skip


@pytest.mark.parametrize(("label", "outcome", "audit", "fuzz"), CASES, ids=[case[0] for case in CASES])
def test_classes(label: str, outcome: CallOutcome, audit: CallClass, fuzz: CallClass) -> None:
    assert classify(outcome, valid_input=True) is audit
    assert classify(outcome, valid_input=False) is fuzz


def test_descriptions_say_why() -> None:
    crash = result("Traceback (most recent call last):\n  File x", error=True)
    assert "traceback" in describe(crash, CallClass.CRASH)
    assert describe(failed(FailureKind.TIMEOUT), CallClass.TIMEOUT) == "timeout happened"


def test_any_error_response_rejects_arguments_that_are_not_an_object() -> None:
    internal = failed(FailureKind.RPC_ERROR, code=-32603)
    assert classify(internal, valid_input=False, malformed=True) is CallClass.REJECTED
    assert classify(failed(FailureKind.TRANSPORT), valid_input=False, malformed=True) is CallClass.CRASH


def test_the_class_is_not_said_twice() -> None:
    timeout = CallOutcome(
        None, Failure(kind=FailureKind.TIMEOUT, message="tools/call t: no answer within 1s"), 1.0
    )
    assert verdict_message(timeout, CallClass.TIMEOUT) == "tools/call t: no answer within 1s"
    exited = CallOutcome(None, Failure(kind=FailureKind.TRANSPORT, message="the server exited"), 0.1)
    assert verdict_message(exited, CallClass.CRASH) == "crash: the server exited"


def test_a_step_keeps_what_was_sent_and_cuts_a_long_answer() -> None:
    long = result("x" * (STEP_CHARS * 2), error=True)
    step = call_step("t", "t [long]", {"a": 1}, long, CallClass.REJECTED)
    assert step.request == {"tool": "t", "arguments": {"a": 1}}
    assert isinstance(step.response, str) and step.response.endswith(" characters)")
    assert len(step.response) < STEP_CHARS + 40 and step.is_error and step.checks == ("rejected",)
    unsent = call_step(
        "t", "t [NaN]", {"a": math.nan}, None, CallClass.SKIPPED, "JSON cannot carry this input"
    )
    assert unsent.response is None and unsent.checks == ("skipped (JSON cannot carry this input)",)
    assert unsent.request == {"tool": "t", "arguments": '{"a": NaN}'}
