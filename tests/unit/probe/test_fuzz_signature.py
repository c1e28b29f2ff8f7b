"""Which failures of a tool count as the same one (shrunk once)."""

from __future__ import annotations

from toolproof.model.result import Failure, FailureKind
from toolproof.probe.fuzz import signature
from toolproof.probe.outcome import CallOutcome
from toolproof.probe.verdicts import CallClass


def traceback(last: str) -> CallOutcome:
    text = f"Traceback (most recent call last):\n  File 'render.py', line 12\n{last}"
    return CallOutcome({"content": [{"type": "text", "text": text}], "isError": True}, None, 0.01)


def test_numbers_and_addresses_do_not_make_a_failure_new() -> None:
    first = traceback("ConnectionError: request of 12 bytes refused at 0x7f3a")
    again = traceback("ConnectionError: request of 10034 bytes refused at 0x1b2c")
    assert signature(first, CallClass.CRASH) == signature(again, CallClass.CRASH)


def test_another_exception_or_class_is_another_failure() -> None:
    crash = traceback("ConnectionError: refused")
    assert signature(crash, CallClass.CRASH) != signature(traceback("KeyError: 'data'"), CallClass.CRASH)
    exited_failure = Failure(kind=FailureKind.TRANSPORT, message="the server exited with code 3")
    exited = CallOutcome(None, exited_failure, 0.1)
    assert signature(exited, CallClass.CRASH) != signature(crash, CallClass.CRASH)
    assert signature(exited, CallClass.CRASH) == signature(
        CallOutcome(None, Failure(kind=FailureKind.TRANSPORT, message="the server exited with code 4"), 0.1),
        CallClass.CRASH,
    )
