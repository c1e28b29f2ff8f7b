"""Tool-call checks: which tools were called, how often, with which arguments (orders are in `sequence`);
each reads a `check.steps.Steps` view of one scope."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from toolproof.check.arguments import (
    argument_violations,
    as_text,
    compact_json,
    count_violations,
    describe_matcher,
    regex_search,
)
from toolproof.check.failures import fail
from toolproof.check.registry import Verdict, checker
from toolproof.check.steps import (
    MAX_SHOWN,
    CallScope,
    Invocation,
    Steps,
    indexes_shown,
    shown,
    times,
)
from toolproof.core.expressions import Scope
from toolproof.core.jsonpath import PathSyntaxError, json_equal, jsonpath_values
from toolproof.model.result import Failure
from toolproof.model.scenario import (
    CallCheck,
    ToolInputCheck,
    ToolsCalled,
    ToolsNotCalled,
)
from toolproof.model.transcript import ToolCall

if TYPE_CHECKING:
    from toolproof.check.run_view import Scoped

# --- presence -----------------------------------------------------------------------------------------------


def tools_called(check: ToolsCalled, steps: Steps) -> Failure | None:
    """Every listed tool occurs at least once."""
    missing = [tool for tool in check.tools if tool not in steps.where]
    if not missing:
        return None
    called = steps.called()
    noun = "tool" if len(missing) == 1 else "tools"
    return fail(
        None,
        f"Required {noun} not used: {', '.join(missing)} (called: {shown(called)})",
        list(check.tools),
        called,
        missing_tools=missing,
        called_tools=called,
    )


def tools_not_called(check: ToolsNotCalled, steps: Steps) -> Failure | None:
    """No listed tool occurs."""
    found = [tool for tool in check.tools if tool in steps.where]
    if not found:
        return None
    parts = [
        f"{tool} ({times(len(steps.where[tool]))} at index {indexes_shown(steps.where[tool])})"
        for tool in found
    ]
    noun = "tool" if len(found) == 1 else "tools"
    return fail(
        None,
        f"Forbidden {noun} used: {'; '.join(parts)}",
        list(check.tools),
        found,
        forbidden_tools_called=found,
        all_called_tools=steps.called(),
    )


# --- one tool or node, with arguments --------------------------------------------------------------------


def _step_problems(check: CallCheck, step: Invocation, scope: Scope) -> list[dict[str, Any]]:
    problems = argument_violations(check, step.arguments, scope)
    if check.is_error is not None and step.is_error != check.is_error:
        state = "failed" if step.is_error else "succeeded"
        problems.append(
            {
                "type": "status_mismatch",
                "tool": check.name,
                "argument": "",
                "expected": "error" if check.is_error else "success",
                "actual": state,
                "message": f"the call {state}",
            }
        )
    return problems


def _problem_count(check: CallCheck, step: Invocation, scope: Scope, limit: int | None = None) -> int:
    """How far a step is from matching (0 = it matches), counted no further than `limit`."""
    status = int(check.is_error is not None and step.is_error != check.is_error)
    if limit is not None and status >= limit:
        return status
    return status + count_violations(check, step.arguments, scope, None if limit is None else limit - status)


def _level(check: CallCheck, scope: CallScope) -> Steps:
    """The steps a check reads: `auto` is the nodes when the run has any, else the tool calls."""
    if check.level == "tool":
        return scope.calls
    if check.level == "node" or scope.has_nodes:
        return scope.nodes
    return scope.calls


def _step_detail(step: Invocation) -> dict[str, Any]:
    return {"index": step.index, "name": step.name, "arguments": step.arguments, "is_error": step.is_error}


def call_check(check: CallCheck, scope: CallScope, expressions: Scope) -> Failure | None:
    """A `CallCheck` over one scope, including the checks on the calls inside the matched nodes."""
    level = _level(check, scope)
    agent_itself = check.calls and not scope.has_nodes and check.name not in level.where
    if agent_itself:  # a run without nodes: a node check with nested call checks stands for the agent
        failure = None
        children = scope.calls
    else:
        failure, matched = _own(check, level, expressions)
        if not check.calls or check.condition == "not_called":
            return failure
        nodes = [step.node for step in matched if step.node is not None]
        if not nodes:
            return _nested_without_parent(check, failure, level)
        children = Steps.of_calls(call for node in nodes for call in node.calls)
    nested = [
        (child, call_check(child, CallScope(children, Steps([]), False), expressions))
        for child in check.calls
    ]
    problems = [(child, child_failure) for child, child_failure in nested if child_failure is not None]
    if not problems:
        return failure
    lines = [f"{child.label or child.name}: {child_failure.message}" for child, child_failure in problems]
    head = failure.message if failure else f"{check.name} ran, but its tool calls did not pass"
    details = dict(failure.details) if failure else {}
    details["nested"] = [
        {
            "check": child.label or child.name,
            "message": child_failure.message,
            "expected": child_failure.expected,
            "actual": child_failure.actual,
            **child_failure.details,
        }
        for child, child_failure in problems
    ]
    return fail(
        None,
        f"{head}; " + "; ".join(lines),
        failure.expected if failure else [child_failure.expected for _, child_failure in problems],
        failure.actual if failure else [child_failure.actual for _, child_failure in problems],
        **details,
    )


def _nested_without_parent(check: CallCheck, failure: Failure | None, level: Steps) -> Failure:
    """The failure of a node check whose node did not match, so the checks on its calls were not made."""
    reason = _unmatched_parent(check, level)
    head = failure.message if failure else f"{check.name} did not run"
    return fail(
        None,
        f"{head}; " + "; ".join(f"{child.label or child.name}: {reason}" for child in check.calls),
        check.name,
        level.called(),
        nested=[{"check": child.label or child.name, "message": reason} for child in check.calls],
    )


def _unmatched_parent(check: CallCheck, level: Steps) -> str:
    """Why the calls inside a node check's node were not checked: it did not run, ran elsewhere than at its
    expected index, or ran without matching the check."""
    where = level.where.get(check.name)
    if not where:
        return "parent node not executed"
    if check.index is not None and check.index not in where:
        return f"parent node ran at index {indexes_shown(where)}, not at index {check.index}"
    return "parent node ran, but did not match"


def _own(check: CallCheck, level: Steps, scope: Scope) -> tuple[Failure | None, list[Invocation]]:
    """The check on the steps of its own level, and the steps that matched name and arguments (for a
    `called` check without nested checks, the first one is enough)."""
    if check.index is not None:
        return _at_index(check, level, scope)
    candidates = [level.steps[index] for index in level.where.get(check.name, [])]
    rules = _has_argument_rules(check)
    if check.condition == "called" and not check.calls:
        closest: tuple[int, Invocation] | None = None
        for step in candidates:
            distance = _problem_count(check, step, scope, closest[0] if closest else None) if rules else 0
            if not distance:
                return None, [step]
            if closest is None or distance < closest[0]:
                closest = (distance, step)
        return _not_found(check, level, candidates, closest[1] if closest else None, scope), []
    matched = (
        [step for step in candidates if not _problem_count(check, step, scope, 1)] if rules else candidates
    )
    if check.condition == "called":
        if matched:
            return None, matched
        return _own(check.model_copy(update={"calls": ()}), level, scope)[0], []
    if check.condition == "not_called":
        if not matched:
            return None, []
        what = " with matching arguments" if rules else ""
        verb = "run" if level.nodes else "be called"
        return fail(
            None,
            f"{check.name} must not {verb}{what}, but {level.ran(len(matched))} (at index "
            f"{indexes_shown([step.index for step in matched])})",
            {"not": _expected_call(check, scope)} if rules else f"no {level.unit} of {check.name}",
            [_step_detail(step) for step in matched[:MAX_SHOWN]],
            called_tools=level.called(),
        ), matched
    return _count(check, level, matched), matched


def _has_argument_rules(check: CallCheck) -> bool:
    return bool(
        check.arguments
        or check.strict
        or check.forbidden_arguments
        or check.forbidden_values
        or check.is_error is not None
    )


def _count(check: CallCheck, level: Steps, matched: list[Invocation]) -> Failure | None:
    count = len(matched)
    low = check.count if check.count is not None else check.min_count
    high = check.count if check.count is not None else check.max_count
    if (low is None or count >= low) and (high is None or count <= high):
        return None
    if low == high:
        wanted = f"exactly {low}"
    elif high is None:
        wanted = f"at least {low}"
    elif low is None:
        wanted = f"at most {high}"
    else:
        wanted = f"between {low} and {high}"
    what = " with matching arguments" if _has_argument_rules(check) else ""
    where = f"at index {indexes_shown([step.index for step in matched])}; " if matched else ""
    return fail(
        None,
        f"{check.name} {level.ran(count)}{what}, expected {wanted} ({where}{level.seen()})",
        wanted,
        count,
        called_tools=level.called(),
    )


def _not_found(
    check: CallCheck, level: Steps, candidates: list[Invocation], closest: Invocation | None, scope: Scope
) -> Failure:
    if closest is None:
        missing = "did not run" if level.nodes else "was not called"
        return fail(
            None,
            f"{check.name} {missing} ({level.seen()})",
            check.name,
            level.called(),
            called_tools=level.called(),
        )
    step, problems = closest, _step_problems(check, closest, scope)
    reasons = "; ".join(problem["message"] for problem in problems)
    return fail(
        None,
        f"no {level.unit} of {check.name} matched ({times(len(candidates))} "
        f"{'run' if level.nodes else 'called'}); closest is index {step.index}: {reasons}",
        _expected_call(check, scope),
        step.arguments,
        closest_call=_step_detail(step),
        violations=problems,
        called_tools=level.called(),
    )


def _expected_call(check: CallCheck, scope: Scope) -> dict[str, Any]:
    expected: dict[str, Any] = {"name": check.name}
    if check.arguments:
        expected["arguments"] = {
            name: describe_matcher(matcher, scope) for name, matcher in check.arguments.items()
        }
    for key in ("strict", "forbidden_arguments", "forbidden_values", "is_error"):
        value = getattr(check, key)
        if value not in (False, (), {}, None):
            expected[key] = (
                value
                if key != "forbidden_values"
                else {name: describe_matcher(matcher, scope) for name, matcher in value.items()}
            )
    return expected


def _at_index(check: CallCheck, level: Steps, scope: Scope) -> tuple[Failure | None, list[Invocation]]:
    index = check.index if check.index is not None else 0
    if index >= len(level.steps):
        if check.condition == "not_called":
            return None, []
        there = (
            f"only {len(level.steps)} nodes ran"
            if level.nodes
            else f"there are only {len(level.steps)} calls"
        )
        return fail(
            None,
            f"expected {check.name} at index {index}, but {there} ({level.seen(level.names)})",
            {"index": index, "name": check.name},
            list(level.names[:MAX_SHOWN]),
            called_sequence=list(level.names[:1000]),
        ), []
    step = level.steps[index]
    problems = [] if step.name == check.name else [{"type": "name_mismatch", "message": f"it is {step.name}"}]
    if not problems:
        problems = _step_problems(check, step, scope)
    if check.condition == "not_called":
        if problems:
            return None, []
        return fail(
            None,
            f"{check.name} must not be the {level.unit} at index {index}, but it is",
            {"index": index, "not": check.name},
            _step_detail(step),
        ), [step]
    if not problems:
        return None, [step]
    reasons = "; ".join(problem["message"] for problem in problems)
    return fail(
        None,
        f"expected {check.name} at index {index}: {reasons} ({level.seen(level.names)})",
        {"index": index, **_expected_call(check, scope)},
        _step_detail(step),
        closest_call=_step_detail(step),
        violations=problems,
        called_sequence=list(level.names[:1000]),
    ), []


# --- MCPLab tool_input_assertions ----------------------------------------------------------------------


def tool_input(check: ToolInputCheck, steps: Steps, calls: Sequence[ToolCall]) -> Failure | None:
    """Some call of the tool satisfies the test (`contains`, `regex` or `jsonpath` on its arguments);
    `steps` indexes `calls` by name."""
    mine = [calls[index] for index in steps.where.get(check.tool, [])]
    if not mine:
        called = steps.called()
        return fail(
            None,
            f"tool not used: {check.tool} (called: {shown(called)})",
            check.tool,
            called,
            called_tools=called,
        )
    try:
        if any(_input_holds(check, call.arguments) for call in mine):
            return None
    except (ValueError, PathSyntaxError) as error:
        return fail(None, str(error), check.value, None)
    seen = [call.arguments for call in mine[:MAX_SHOWN]]
    if check.op == "contains":
        wanted = f"containing {check.value!r} (case-insensitive)"
    elif check.op == "regex":
        wanted = f"matching /{check.value}/"
    else:
        wanted = f"with {check.value}" + (
            f" equal to {compact_json(check.equals)}" if check.has_equals else ""
        )
    return fail(
        None,
        f"no call of {check.tool} has arguments {wanted}; arguments seen: "
        f"{'; '.join(as_text(args) for args in seen)}",
        check.value,
        seen,
    )


def _input_holds(check: ToolInputCheck, arguments: Any) -> bool:
    if check.op == "contains":
        return check.value.lower() in compact_json(arguments).lower()
    if check.op == "regex":
        return regex_search(check.value, compact_json(arguments), "js")
    values = jsonpath_values(check.value, arguments)
    if check.has_equals:
        return any(json_equal(value, check.equals) for value in values)
    return bool(values)


# --- registered checkers ------------------------------------------------------------------------------------


@checker(ToolsCalled, describe=lambda c: f"{c.kind}: {', '.join(c.tools)}", looks_at=lambda c: c.tools)
def _tools_called(check: ToolsCalled, at: Scoped) -> Verdict:
    return tools_called(check, at.calls)


@checker(ToolsNotCalled, describe=lambda c: f"{c.kind}: {', '.join(c.tools)}", looks_at=lambda c: c.tools)
def _tools_not_called(check: ToolsNotCalled, at: Scoped) -> Verdict:
    return tools_not_called(check, at.calls)


_BOUNDS = {"called": "called", "not_called": "not called", "count": "call count"}


def _describe_call(check: CallCheck) -> str:
    at = f" at index {check.index}" if check.index is not None else ""
    return f"{check.name} {_BOUNDS[check.condition]}{at}"


@checker(CallCheck, describe=_describe_call, looks_at=lambda c: (c.name,))
def _call(check: CallCheck, at: Scoped) -> Verdict:
    return call_check(check, at.call_scope, at.expressions)


@checker(
    ToolInputCheck, describe=lambda c: f"tool input {c.op} {c.tool}: {c.value}", looks_at=lambda c: (c.tool,)
)
def _tool_input(check: ToolInputCheck, at: Scoped) -> Verdict:
    return tool_input(check, at.calls, at.raw_calls)
