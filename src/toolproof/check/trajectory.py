"""Trajectory checks on a recorded list of tool calls, and reading such a list from a JSONL audit log."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from toolproof.core.dotpath import NotJSONError, json_type, parse_json
from toolproof.core.gofmt import cut, go_json, go_trim, go_v, quote
from toolproof.model.result import Failure, FailureKind
from toolproof.model.server_case import TraceEntry, TrajectoryCheck

MAX_SHOWN_CALLS = 30


class AuditLogError(ValueError):
    """A line of an audit log that is not a JSON object."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line


def parse_audit_log(text: str) -> list[TraceEntry]:
    """The tool calls of a JSONL audit log: one JSON object per line, `{"tool": ..., "args": {...}}`.

    Blank lines, `null` and objects without a non-empty string `tool` (other audit events) are skipped; `args`
    that is not an object counts as no arguments. A line that is not JSON, or not an object, raises
    `AuditLogError` naming its 1-based line number.
    """
    entries: list[TraceEntry] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        line = go_trim(raw)
        if not line:
            continue
        try:
            record = parse_json(line)
        except NotJSONError as error:
            raise AuditLogError(number, f"invalid JSON ({error})") from None
        if record is None:
            continue
        if not isinstance(record, Mapping):
            kind = json_type(record)
            article = "an" if kind[0] in "aeiou" else "a"
            raise AuditLogError(number, f"expected a JSON object, got {article} {kind}")
        tool = record.get("tool")
        if not isinstance(tool, str) or not tool:
            continue
        args = record.get("args")
        entries.append(TraceEntry(tool=tool, args=dict(args) if isinstance(args, Mapping) else {}))
    return entries


def _fail(check: str, message: str, expected: Any, trace: list[TraceEntry], actual: Any = None) -> Failure:
    """A failure whose message ends with the calls made; `actual` defaults to their tool names."""
    return Failure(
        kind=FailureKind.EXPECTATION, check=check, message=f"{check}: {message}; calls: {_calls(trace)}",
        expected=expected, actual=[entry.tool for entry in trace] if actual is None else actual,
    )


def _calls(trace: list[TraceEntry]) -> str:
    names = [entry.tool for entry in trace[:MAX_SHOWN_CALLS]]
    more = f", … (+{len(trace) - MAX_SHOWN_CALLS} more)" if len(trace) > MAX_SHOWN_CALLS else ""
    return "[" + ", ".join(names) + more + "]"


def _listed(items: list[str]) -> str:
    return ", ".join(quote(item, 80) for item in items)


def _order(check: TrajectoryCheck, trace: list[TraceEntry]) -> Failure | None:
    """The tools occur in this order, other calls between allowed (greedy subsequence)."""
    tools = check.tools
    matched = 0
    for entry in trace:
        if matched < len(tools) and entry.tool == tools[matched]:
            matched += 1
    if matched == len(tools):
        return None
    wanted = tools[matched]
    if not any(entry.tool == wanted for entry in trace):
        return _fail("order", f"{quote(wanted)} was never called (expected order: {' -> '.join(tools)})",
                     tools, trace)
    done = " -> ".join(tools[:matched])
    message = f"{quote(wanted)} was not called after {quote(tools[matched - 1])} (expected order: " \
        f"{' -> '.join(tools)}; only {done} happened in that order)"
    return _fail("order", message, tools, trace)


def _presence(check: TrajectoryCheck, trace: list[TraceEntry]) -> Failure | None:
    called = {entry.tool for entry in trace}
    missing = [tool for tool in check.tools if tool not in called]
    if not missing:
        return None
    return _fail("presence", f"{_listed(missing)} never called", check.tools, trace)


def _absence(check: TrajectoryCheck, trace: list[TraceEntry]) -> Failure | None:
    found = []
    for tool in check.tools:
        numbers = [str(number) for number, entry in enumerate(trace, 1) if entry.tool == tool]
        if numbers:
            found.append(f"{quote(tool, 80)} (call #{', #'.join(numbers)})")
    if not found:
        return None
    return _fail("absence", f"forbidden tools called: {', '.join(found)}", check.tools, trace)


def _mismatches(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> list[str]:
    """How one call's arguments differ from the expected ones (values compared by Go `%v` text)."""
    problems: list[str] = []
    for name, want in expected.items():
        if name not in actual:
            problems.append(f"no argument {quote(name, 80)}")
        elif go_v(actual[name]) != go_v(want):
            got, wanted = cut(go_json(actual[name]), 120), cut(go_json(want), 120)
            problems.append(f"{name} = {got}, expected {wanted}")
    return problems


def _args_contain(check: TrajectoryCheck, trace: list[TraceEntry]) -> Failure | None:
    """Some call of the tool has every listed argument with that value (other arguments ignored)."""
    if not check.tool:
        return _fail("args_contain", "the check names no tool", check.args, trace)
    calls = [(number, entry) for number, entry in enumerate(trace, 1) if entry.tool == check.tool]
    if not calls:
        return _fail("args_contain", f"{quote(check.tool)} was never called", check.args, trace)
    problems = [(number, _mismatches(check.args, entry.args)) for number, entry in calls]
    if any(not found for _, found in problems):
        return None
    number, closest = min(problems, key=lambda item: len(item[1]))
    return _fail(
        "args_contain",
        f"no call of {quote(check.tool)} has {cut(go_json(check.args), 200)}; closest is call #{number}: "
        f"{'; '.join(closest)}",
        check.args, trace, actual=[entry.args for _, entry in calls],
    )


_CHECKERS: dict[str, Callable[[TrajectoryCheck, list[TraceEntry]], Failure | None]] = {
    "order": _order,
    "presence": _presence,
    "absence": _absence,
    "args_contain": _args_contain,
}


def check_trajectory(checks: list[TrajectoryCheck], trace: list[TraceEntry]) -> Failure | None:
    """The first failing check, in the order written, or None when all hold."""
    for check in checks:
        failure = _CHECKERS[check.type](check, trace)
        if failure is not None:
            return failure
    return None
