"""Checks on what the agent answered: the reply text, the response as JSON, HTTP status and latency."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from toolproof.check.answer import Answer, NoDocument, excerpt
from toolproof.check.arguments import PatternError, as_text, compact_json, match, regex_search
from toolproof.check.failures import fail
from toolproof.check.registry import NotEvaluated, Verdict, checker
from toolproof.core.expressions import Scope, dot_path
from toolproof.core.jsonpath import PathSyntaxError, json_equal
from toolproof.core.jsregex import strip_leading_flags
from toolproof.model.result import Failure
from toolproof.model.scenario import (
    FieldCheck,
    GuardrailCheck,
    JsonPathCheck,
    LatencyCheck,
    RegexCheck,
    SchemaCheck,
    StatusCheck,
    TextCheck,
)
from toolproof.model.transcript import Turn

if TYPE_CHECKING:
    from toolproof.check.run_view import Scoped


# --- text -------------------------------------------------------------------------------------------------

_TEXT_WORDS = {
    "contains": "does not contain",
    "not_contains": "contains",
    "starts_with": "does not start with",
    "ends_with": "does not end with",
    "equals": "does not equal",
}


def _text_holds(op: str, value: str, text: str) -> bool:
    if op in ("contains", "not_contains"):
        return value in text
    if op == "starts_with":
        return text.startswith(value)
    if op == "ends_with":
        return text.endswith(value)
    return text == value


def text_check(check: TextCheck, reply: str) -> Failure | None:
    """A literal test of the reply (case-insensitive and untrimmed unless the check says otherwise)."""

    def norm(text: str) -> str:
        text = text.strip() if check.trim else text
        return text.lower() if check.ignore_case else text

    text = norm(reply)
    hits = [value for value in check.values if _text_holds(check.op, norm(value), text)]
    if check.op == "contains":
        failing = [value for value in check.values if value not in hits]
    elif check.op == "not_contains":
        failing = hits
    else:
        failing = [] if hits else list(check.values)
    if not failing:
        return None
    case = " (case-insensitive)" if check.ignore_case else ""
    wanted = ", ".join(json.dumps(value, ensure_ascii=False) for value in failing)
    details: dict[str, Any] = {"missing_patterns": failing} if check.op == "contains" else {}
    if check.op == "not_contains":
        details = {"found_patterns": failing}
    return fail(
        None,
        f"Response {_TEXT_WORDS[check.op]} {wanted}{case}; response: {excerpt(reply)}",
        list(check.values),
        reply,
        **details,
    )


def regex_check(check: RegexCheck, reply: str) -> Failure | None:
    """The reply matches the pattern somewhere (or must not)."""
    pattern = strip_leading_flags(check.pattern) if check.strip_inline_flags else check.pattern
    try:
        found = regex_search(pattern, reply, check.flavor, check.ignore_case)
    except PatternError as error:
        return fail(
            None,
            f"{error.headline}: {check.pattern} ({error.reason})",
            check.pattern,
            None,
            pattern=check.pattern,
        )
    if found == check.should_match:
        return None
    verb = "does not match" if check.should_match else "matches"
    return fail(
        None,
        f"Response {verb} /{check.pattern}/ (should_match: {str(check.should_match).lower()}); "
        f"response: {excerpt(reply)}",
        check.pattern,
        reply,
        pattern=check.pattern,
        content=reply[:10_000],
    )


# --- JSON ---------------------------------------------------------------------------------------------------


def jsonpath_check(check: JsonPathCheck, answer: Answer) -> Failure | None:
    """The path matches (`exists`), matches nothing (`not_exists`), or matches a value equal to `equals`."""
    try:
        data = answer.document()
    except NoDocument as error:
        return fail(
            None,
            f"JSONPath assertion failed: invalid JSON for path {check.path} ({error})",
            check.path,
            answer.turn.reply,
        )
    try:
        values = answer.select(check.path)
    except PathSyntaxError as error:
        return fail(None, str(error), check.path, None)
    if check.mode == "exists" and values:
        return None
    if check.mode == "not_exists" and not values:
        return None
    if check.mode == "equals" and any(json_equal(value, check.equals) for value in values):
        return None
    if check.mode == "exists":
        message = f"JSONPath {check.path} matched nothing in {excerpt(as_text(data))}"
        return fail(None, message, check.path, None)
    if check.mode == "not_exists":
        return fail(
            None, f"JSONPath {check.path} should match nothing but matched {compact_json(values)}", [], values
        )
    return fail(
        None,
        f"JSONPath {check.path} has no value equal to {compact_json(check.equals)} (no type coercion); "
        f"found: {compact_json(values)}",
        check.equals,
        values,
    )


def _at(data: Any, field: str | None) -> Any:
    return data if not field else dot_path(data, field)


def field_check(check: FieldCheck, answer: Answer, scope: Scope) -> Failure | None:
    """The value at the dot path satisfies the matcher (negated: does not); a missing path fails both."""
    try:
        value = _at(answer.document(), check.field)
    except (NoDocument, LookupError) as error:
        return fail(
            None, f"{check.field}: {error.args[0]}", check.expected.model_dump(exclude_defaults=True), None
        )
    miss = match(check.expected, value, scope)
    if check.negate:
        if miss is not None:
            return None
        return fail(
            None,
            f"{check.field} = {compact_json(value)} must not match, but it does",
            {"not": check.expected.model_dump(exclude_defaults=True)},
            value,
        )
    if miss is None:
        return None
    return fail(None, f"{check.field} = {compact_json(value)} {miss.reason}", miss.expected, value)


def schema_check(check: SchemaCheck, answer: Answer) -> Failure | None:
    """The response (or the value at `field`) is valid against the schema."""
    try:
        value = _at(answer.document(), check.field)
    except (NoDocument, LookupError) as error:
        where = f"{check.field}: " if check.field else ""
        return fail(None, f"{where}{error.args[0]}", check.json_schema, None)
    from toolproof.core.schemas import schema_violation  # jsonschema: loaded only for schema checks

    problem = schema_violation(check.json_schema, value)
    if problem is None:
        return None
    where = f" {check.field}" if check.field else ""
    return fail(None, f"response{where} is not valid against the schema: {problem}", check.json_schema, value)


# --- status and latency ---------------------------------------------------------------------------------


def status_check(check: StatusCheck, turns: Sequence[tuple[int, Turn]]) -> Failure | NotEvaluated | None:
    """Every turn that recorded an HTTP status had the expected one (`turns`: numbered from 0 in the run)."""
    seen = [(index, turn.http_status) for index, turn in turns if turn.http_status is not None]
    if not seen:
        return NotEvaluated("the run recorded no HTTP status")
    wrong = [(index, status) for index, status in seen if status != check.expected]
    if not wrong:
        return None
    where = ", ".join(f"{status} (turn {index + 1})" for index, status in wrong)
    return fail(
        None,
        f"HTTP status was {where}, expected {check.expected}",
        check.expected,
        [status for _, status in wrong],
    )


def latency_check(check: LatencyCheck, turns: Sequence[tuple[int, Turn]]) -> Failure | NotEvaluated | None:
    """Every turn that recorded a duration took at most `max_ms` (`turns`: numbered from 0 in the run)."""
    seen = [(index, turn.duration_ms) for index, turn in turns if turn.duration_ms is not None]
    if not seen:
        return NotEvaluated("the run recorded no response time")
    slow = [(index, ms) for index, ms in seen if ms > check.max_ms]
    if not slow:
        return None
    where = ", ".join(f"{ms:g} ms (turn {index + 1})" for index, ms in slow)
    message = f"response took {where}, limit {check.max_ms:g} ms"
    return fail(None, message, check.max_ms, [ms for _, ms in slow])


def guardrail_check(check: GuardrailCheck, turns: Sequence[Turn]) -> Failure | NotEvaluated | None:
    """The named guardrail triggered in scope (or did not); with no name, whether any guardrail triggered.
    Not evaluated when no turn in scope recorded guardrail information."""
    recorded = [turn.guardrails for turn in turns if turn.guardrails is not None]
    if not recorded:
        return NotEvaluated("the run recorded no guardrail information")
    events = [event for guardrails in recorded for event in guardrails]
    triggered = [event for event in events if event.triggered and check.name in (None, event.name)]
    if bool(triggered) == check.expected:
        return None
    names = sorted({event.name for event in events if event.triggered})
    which = f"guardrail {check.name!r}" if check.name else "a guardrail"
    verb = "did not trigger" if check.expected else "triggered"
    seen = f" ({', '.join(names)} triggered)" if names else " (none triggered)"
    return fail(
        None,
        f"{which} {verb}{seen}",
        check.expected,
        bool(triggered),
        expected_triggered=check.expected,
        actually_triggered=bool(triggered),
        guardrail=check.name,
        triggered=names,
    )


# --- registered checkers ------------------------------------------------------------------------------------


@checker(
    TextCheck,
    describe=lambda c: f"response {c.op}: {', '.join(c.values)}",
    looks_at="reply",
    reads_reply=True,
)
def _text(check: TextCheck, at: Scoped) -> Verdict:
    return text_check(check, at.reply)


@checker(
    RegexCheck,
    describe=lambda c: f"response {'matches' if c.should_match else 'does not match'} /{c.pattern}/",
    looks_at="reply",
    reads_reply=True,
)
def _regex(check: RegexCheck, at: Scoped) -> Verdict:
    return regex_check(check, at.reply)


def _describe_jsonpath(check: JsonPathCheck) -> str:
    equals = f" {compact_json(check.equals)}" if check.mode == "equals" else ""
    return f"jsonpath {check.path} {check.mode}{equals}"


@checker(JsonPathCheck, describe=_describe_jsonpath, looks_at="reply", reads_reply=True)
def _jsonpath(check: JsonPathCheck, at: Scoped) -> Verdict:
    return jsonpath_check(check, at.answer)


@checker(FieldCheck, describe=lambda c: f"json_match {c.field}", looks_at="reply", reads_reply=True)
def _field(check: FieldCheck, at: Scoped) -> Verdict:
    return field_check(check, at.answer, at.expressions)


@checker(
    SchemaCheck, describe=lambda c: f"json_schema {c.field or 'response'}", looks_at="reply", reads_reply=True
)
def _schema(check: SchemaCheck, at: Scoped) -> Verdict:
    return schema_check(check, at.answer)


@checker(StatusCheck, describe=lambda c: f"http_status {c.expected}", looks_at="reply")
def _status(check: StatusCheck, at: Scoped) -> Verdict:
    return status_check(check, at.numbered)


@checker(LatencyCheck, describe=lambda c: f"response_time <= {c.max_ms:g} ms", looks_at="reply")
def _latency(check: LatencyCheck, at: Scoped) -> Verdict:
    return latency_check(check, at.numbered)


@checker(
    GuardrailCheck,
    describe=lambda c: f"guardrail {c.name or '(any)'} {'triggered' if c.expected else 'not triggered'}",
    looks_at="reply",
)
def _guardrail(check: GuardrailCheck, at: Scoped) -> Verdict:
    return guardrail_check(check, at.turns)
