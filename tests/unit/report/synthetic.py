"""Synthetic runs for the report tests: four results (one of each status) finishing out of order."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

from toolproof.model.events import CaseFinished, CaseStarted, RunFinished, RunStarted, Sink
from toolproof.model.result import CaseResult, Failure, FailureKind, Status

SECRET = "hunter2-topsecret"
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m\x9b1m\x07\rok"


class TTY(io.StringIO):
    """A captured stream that claims to be a terminal."""

    def isatty(self) -> bool:
        return True


def sample() -> list[CaseResult]:
    """PASS, FAIL (with a stderr tail), SKIP and ERROR (JSON-RPC -32602), in file order."""
    suite = Path("suites/time.yaml")
    return [
        CaseResult(name="get time", file=suite, line=3, status=Status.PASS, duration_s=0.012),
        CaseResult(
            name="convert time",
            file=suite,
            line=9,
            status=Status.FAIL,
            duration_s=1.234,
            failure=Failure(
                kind=FailureKind.EXPECTATION,
                check="contains",
                message='result text does not contain "Paris"',
                expected="Paris",
                actual={"timezone": "UTC"},
            ),
            stderr="starting\nwarning: slow\n",
        ),
        CaseResult(
            name="needs token",
            file=Path("suites/auth.yaml"),
            status=Status.SKIP,
            reason="env var TOKEN not set",
        ),
        CaseResult(
            name="crashes",
            file=Path("suites/auth.yaml"),
            line=12,
            status=Status.ERROR,
            duration_s=0.5,
            failure=Failure(kind=FailureKind.RPC_ERROR, message="Invalid params", details={"code": -32602}),
        ),
    ]


def feed(
    sink: Sink,
    results: Sequence[CaseResult],
    order: Sequence[int] | None = None,
    duration_s: float = 3.21,
) -> None:
    """Send a whole run to `sink`: all cases start, then finish in `order` (default: reversed)."""
    total = len(results)
    finish = list(order) if order is not None else list(reversed(range(total)))
    sink.handle(RunStarted(total=total))
    for index, result in enumerate(results):
        sink.handle(CaseStarted(name=result.name, index=index, total=total))
    for index in finish:
        sink.handle(CaseFinished(result=results[index], index=index, total=total))
    sink.handle(RunFinished(results=list(results), duration_s=duration_s))


def hostile(result: CaseResult) -> CaseResult:
    """`result` with escape sequences and the secret in every server-provided text field."""
    failure = result.failure or Failure(kind=FailureKind.TOOL_ERROR, message="")
    return result.model_copy(
        update={
            "name": f"{result.name} {HOSTILE}",
            "reason": f"{HOSTILE} {SECRET}",
            "stderr": f"token={SECRET}\n{HOSTILE}\n",
            "failure": failure.model_copy(
                update={
                    "message": f"{HOSTILE} saw {SECRET}",
                    "actual": {"auth": f"Bearer {SECRET}", "text": HOSTILE},
                    "details": {"echo": SECRET},
                }
            ),
        }
    )
