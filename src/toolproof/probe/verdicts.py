"""How a probe's call came out: the audit and fuzz classes of one `CallOutcome` (pure, table-driven), and the
call as a report step (what was sent, what came back, cut short)."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any

from toolproof.model.result import FailureKind, Step
from toolproof.probe.outcome import CallOutcome

INVALID_PARAMS = -32602

INTERNAL_ERROR_MARKERS = (
    "internal error",
    "traceback",
    "stack trace",
    "panic:",
    "nullpointerexception",
    "segmentation fault",
)
"""Text in an isError result that shows the server failed inside rather than declined the input."""


class CallClass(StrEnum):
    """The class of one call. Audit uses healthy/rejects-valid-input; fuzz uses passed/rejected."""

    HEALTHY = "healthy"  # audit: any answer that is not an internal error
    PASSED = "passed"  # fuzz: a result without isError
    REJECTED = "rejected"  # fuzz: a validation error (-32602, or isError explaining the bad input)
    REJECTS_VALID = "rejects-valid-input"  # audit: -32602 for arguments that match the schema
    CRASH = "crash"  # the process exited, the connection broke, a JSON-RPC error, or an internal error
    TIMEOUT = "timeout"  # no answer within --timeout
    PROTOCOL = "protocol-error"  # the reply is not valid MCP
    SKIPPED = "skipped"  # not called (a destructive tool, or an input JSON cannot carry)


FINDINGS = frozenset({CallClass.REJECTS_VALID, CallClass.CRASH, CallClass.TIMEOUT, CallClass.PROTOCOL})
"""The classes that count against a server (exit status 1)."""

CODES = {
    CallClass.HEALTHY: "E000",
    CallClass.CRASH: "E201",
    CallClass.TIMEOUT: "E202",
    CallClass.PROTOCOL: "E201",
    CallClass.REJECTS_VALID: "E201",
}
"""mcp-assert's report codes for the audit classes (it has no code of its own for rejected valid input)."""

SAID_BY_KIND = {CallClass.TIMEOUT: FailureKind.TIMEOUT, CallClass.PROTOCOL: FailureKind.PROTOCOL}
"""Classes the reports' failure-kind label already names (`timeout: ...`, `protocol violation: ...`)."""
STEP_CHARS = 2000
"""How much of the arguments and of the answer of one call a report step keeps (as compact JSON)."""


def result_text(result: dict[str, Any]) -> str:
    """The text blocks of a tools/call result, joined by newlines."""
    content = result.get("content")
    blocks = content if isinstance(content, list) else []
    return "\n".join(
        str(block.get("text", ""))
        for block in blocks
        if isinstance(block, dict) and block.get("type") == "text"
    )


def internal_error(text: str) -> str | None:
    """The internal-error marker `text` contains, if any."""
    lowered = text.lower()
    return next((marker for marker in INTERNAL_ERROR_MARKERS if marker in lowered), None)


def classify(outcome: CallOutcome, *, valid_input: bool, malformed: bool = False) -> CallClass:
    """The class of one call; `valid_input` says the arguments matched the schema (audit) or not (fuzz);
    `malformed` that they were not even an object, as MCP requires, so any error response rejects them."""
    failure = outcome.failure
    if failure is not None:
        if failure.kind is FailureKind.TIMEOUT:
            return CallClass.TIMEOUT
        if failure.kind is FailureKind.PROTOCOL:
            return CallClass.PROTOCOL
        if failure.kind is FailureKind.RPC_ERROR and (
            malformed or failure.details.get("code") == INVALID_PARAMS
        ):
            return CallClass.REJECTS_VALID if valid_input else CallClass.REJECTED
        return CallClass.CRASH
    result = outcome.result or {}
    if result.get("isError") is True:
        if internal_error(result_text(result)):
            return CallClass.CRASH
        return CallClass.HEALTHY if valid_input else CallClass.REJECTED
    return CallClass.HEALTHY if valid_input else CallClass.PASSED


def describe(outcome: CallOutcome, verdict: CallClass) -> str:
    """One line on why the call got its class."""
    if outcome.failure is not None:
        return outcome.failure.message
    text = result_text(outcome.result or {})
    if verdict is CallClass.CRASH:
        marker = internal_error(text) or ""
        return f"isError result with internal-error text ({marker!r}): {_first_line(text)}"
    if verdict is CallClass.REJECTED:
        return f"isError result: {_first_line(text)}"
    return _first_line(text) or "a result"


def _first_line(text: str, limit: int = 200) -> str:
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return line if len(line) <= limit else line[:limit] + "..."


def verdict_message(outcome: CallOutcome, verdict: CallClass) -> str:
    """`<class>: <why>`, or only `<why>` when the failure kind the reports print first says the class."""
    why = describe(outcome, verdict)
    failure = outcome.failure
    if failure is not None and SAID_BY_KIND.get(verdict) is failure.kind:
        return why
    return f"{verdict.value}: {why}"


def excerpt(value: Any, limit: int = 300) -> str:
    """`value` as JSON text, cut after `limit` characters with a note of its length."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def _kept(value: Any) -> Any:
    """`value` itself when its compact JSON fits STEP_CHARS, else an excerpt of it."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError):  # NaN, infinities: no JSON carries them
        return excerpt(value, STEP_CHARS)
    return value if len(text) <= STEP_CHARS else excerpt(value, STEP_CHARS)


def call_step(
    tool: str, label: str, arguments: Any, outcome: CallOutcome | None, verdict: CallClass, why: str = ""
) -> Step:
    """One tools/call as the reports show it: the arguments sent, the result (or the failure) that came
    back, both cut to STEP_CHARS, and its class in `checks` (`why` it was not sent, for one that was not)."""
    request = {"tool": tool, "arguments": _kept(arguments)}
    check = f"{verdict.value} ({why})" if why else verdict.value
    if outcome is None:
        return Step(kind="request", name=label, request=request, checks=(check,))
    if outcome.result is not None:
        response: Any = _kept(outcome.result)
        is_error = outcome.result.get("isError") is True
    else:
        failure = outcome.failure
        response = {"failure": failure.kind.value, "message": failure.message} if failure else None
        is_error = True
    return Step(
        kind="request",
        name=label,
        request=request,
        response=response,
        is_error=is_error,
        duration_ms=outcome.duration_s * 1000,
        checks=(check,),
    )
