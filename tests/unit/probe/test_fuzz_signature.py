"""Which failures of a tool count as the same one (shrunk once)."""

from __future__ import annotations

from toolproof.model.result import Failure, FailureKind
from toolproof.probe.fuzz import signature
from toolproof.probe.outcome import Outcome
from toolproof.probe.verdicts import Verdict


def traceback(last: str) -> Outcome:
    text = f"Traceback (most recent call last):\n  File 'render.py', line 12\n{last}"
    return Outcome({"content": [{"type": "text", "text": text}], "isError": True}, None, 0.01)


def test_numbers_and_addresses_do_not_make_a_failure_new() -> None:
    first = traceback("ConnectionError: request of 12 bytes refused at 0x7f3a")
    again = traceback("ConnectionError: request of 10034 bytes refused at 0x1b2c")
    assert signature(first, Verdict.CRASH) == signature(again, Verdict.CRASH)


def test_another_exception_or_class_is_another_failure() -> None:
    crash = traceback("ConnectionError: refused")
    assert signature(crash, Verdict.CRASH) != signature(traceback("KeyError: 'data'"), Verdict.CRASH)
    exited = Outcome(None, Failure(kind=FailureKind.TRANSPORT, message="the server exited with code 3"), 0.1)
    assert signature(exited, Verdict.CRASH) != signature(crash, Verdict.CRASH)
    assert signature(exited, Verdict.CRASH) == signature(
        Outcome(None, Failure(kind=FailureKind.TRANSPORT, message="the server exited with code 4"), 0.1),
        Verdict.CRASH,
    )
