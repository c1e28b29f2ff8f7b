"""Trajectory checks (mcp-assert `trajectory:`) on a recorded list of tool calls; an audit log is read into
such a list by `sources/traces/audit_log.py`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from toolproof.check.sequence import ordered_prefix
from toolproof.check.steps import Steps
from toolproof.core.gofmt import cut, go_json, go_v, quote
from toolproof.model.result import Failure, FailureKind
from toolproof.model.server_case import TrajectoryCheck
from toolproof.model.transcript import ToolCall

MAX_SHOWN_CALLS = 30
Trace = Sequence[ToolCall]


def _fail(check: str, message: str, expected: Any, trace: Trace, actual: Any = None) -> Failure:
    """A failure whose message ends with the calls made; `actual` defaults to their tool names."""
    return Failure(
        kind=FailureKind.EXPECTATION, check=check, message=f"{check}: {message}; calls: {_calls(trace)}",
        expected=expected, actual=[entry.tool for entry in trace] if actual is None else actual,
    )


def _calls(trace: Trace) -> str:
    names = [entry.tool for entry in trace[:MAX_SHOWN_CALLS]]
    more = f", … (+{len(trace) - MAX_SHOWN_CALLS} more)" if len(trace) > MAX_SHOWN_CALLS else ""
    return "[" + ", ".join(names) + more + "]"


def _args(call: ToolCall) -> Mapping[str, Any]:
    return call.arguments if isinstance(call.arguments, Mapping) else {}


def _listed(items: list[str]) -> str:
    return ", ".join(quote(item, 80) for item in items)


def _order(check: TrajectoryCheck, trace: Trace) -> Failure | None:
    """The tools occur in this order, other calls between allowed (greedy subsequence, as `sequence` reads
    an ordered sequence)."""
    tools = check.tools
    steps = Steps.of_calls(trace)
    matched = ordered_prefix(tools, steps)
    if matched == len(tools):
        return None
    wanted = tools[matched]
    if wanted not in steps.where:
        return _fail("order", f"{quote(wanted)} was never called (expected order: {' -> '.join(tools)})",
                     tools, trace)
    done = " -> ".join(tools[:matched])
    message = f"{quote(wanted)} was not called after {quote(tools[matched - 1])} (expected order: " \
        f"{' -> '.join(tools)}; only {done} happened in that order)"
    return _fail("order", message, tools, trace)


def _presence(check: TrajectoryCheck, trace: Trace) -> Failure | None:
    called = {entry.tool for entry in trace}
    missing = [tool for tool in check.tools if tool not in called]
    if not missing:
        return None
    return _fail("presence", f"{_listed(missing)} never called", check.tools, trace)


def _absence(check: TrajectoryCheck, trace: Trace) -> Failure | None:
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


def _args_contain(check: TrajectoryCheck, trace: Trace) -> Failure | None:
    """Some call of the tool has every listed argument with that value (other arguments ignored)."""
    if not check.tool:
        return _fail("args_contain", "the check names no tool", check.args, trace)
    calls = [(number, entry) for number, entry in enumerate(trace, 1) if entry.tool == check.tool]
    if not calls:
        return _fail("args_contain", f"{quote(check.tool)} was never called", check.args, trace)
    problems = [(number, _mismatches(check.args, _args(entry))) for number, entry in calls]
    if any(not found for _, found in problems):
        return None
    number, closest = min(problems, key=lambda item: len(item[1]))
    return _fail(
        "args_contain",
        f"no call of {quote(check.tool)} has {cut(go_json(check.args), 200)}; closest is call #{number}: "
        f"{'; '.join(closest)}",
        check.args, trace, actual=[_args(entry) for _, entry in calls],
    )


_CHECKERS: dict[str, Callable[[TrajectoryCheck, Trace], Failure | None]] = {
    "order": _order,
    "presence": _presence,
    "absence": _absence,
    "args_contain": _args_contain,
}


def check_trajectory(checks: list[TrajectoryCheck], trace: Trace) -> Failure | None:
    """The first failing check, in the order written, or None when all hold."""
    for check in checks:
        failure = _CHECKERS[check.type](check, trace)
        if failure is not None:
            return failure
    return None
