"""Tool-call checks: which tools were called, how often, in what order, with which arguments.

Every check reads a `Steps` view of one scope (a turn, the whole conversation, or the calls inside a node),
built once per scope with the calls indexed by name, so a check costs time in proportion to what it lists,
not to the length of the run.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from toolproof.check.arguments import (
    argument_violations,
    as_text,
    compact_json,
    count_violations,
    describe_matcher,
    regex_search,
)
from toolproof.core.expressions import Scope
from toolproof.core.jsonpath import PathSyntaxError, json_equal, jsonpath_values
from toolproof.model.result import Failure, FailureKind
from toolproof.model.scenario import (
    CallCheck,
    SequenceCheck,
    ToolInputCheck,
    ToolsCalled,
    ToolsNotCalled,
)
from toolproof.model.transcript import Node, ToolCall

MAX_SHOWN = 30
SKIPPED = "skipped"  # the status of a workflow node that did not run (n8n)


@dataclass(frozen=True)
class Step:
    """A tool call or an executed node, seen the same way by `CallCheck`."""

    name: str
    arguments: Any
    is_error: bool
    index: int  # position among the steps of its level and scope
    node: Node | None = None


@dataclass
class Steps:
    """The steps of one level and scope, in order, indexed by name; `nodes` says they are workflow nodes
    (which run), not tool calls (which are called); `skipped` names the nodes the workflow skipped (which did
    not run, so are no steps)."""

    steps: Sequence[Step]
    nodes: bool = False
    skipped: tuple[str, ...] = ()
    names: tuple[str, ...] = field(init=False)
    where: dict[str, list[int]] = field(init=False)

    def __post_init__(self) -> None:
        self.names = tuple(step.name for step in self.steps)
        self.where = {}
        for index, name in enumerate(self.names):
            self.where.setdefault(name, []).append(index)

    @classmethod
    def of_calls(cls, calls: Iterable[ToolCall]) -> Steps:
        return cls(
            [Step(call.tool, call.arguments, call.is_error, index) for index, call in enumerate(calls)]
        )

    @classmethod
    def of_nodes(cls, nodes: Iterable[Node]) -> Steps:
        """The nodes that ran (a node with status `skipped`, as n8n reports one, did not)."""
        listed = list(nodes)
        ran = [node for node in listed if node.status != SKIPPED]
        return cls(
            [
                Step(node.name, node.arguments, node.status == "error" or node.error is not None, index, node)
                for index, node in enumerate(ran)
            ],
            nodes=True,
            skipped=tuple(node.name for node in listed if node.status == SKIPPED),
        )

    @cached_property
    def counts(self) -> Counter[str]:
        return Counter(self.names)

    def called(self) -> list[str]:
        """The distinct names, in the order of their first call."""
        return list(self.where)

    def seen(self, names: Sequence[str] | None = None) -> str:
        """What ran (`names`, else the distinct names), for messages: `called: a, b`, or for nodes
        `nodes run: a, b` and `skipped: c` when some were skipped."""
        ran = f"{'nodes run' if self.nodes else 'called'}: {shown(self.called() if names is None else names)}"
        return f"{ran}; skipped: {shown(self.skipped)}" if self.skipped else ran

    def ran(self, count: int) -> str:
        """`was called 3 times`, or for nodes `ran 3 times`."""
        return f"{'ran' if self.nodes else 'was called'} {_times(count)}"

    @property
    def unit(self) -> str:
        """What one step is, for messages: `call` or `node`."""
        return "node" if self.nodes else "call"


@dataclass
class CallScope:
    """What a call check looks at: the tool calls and the nodes of its scope."""

    calls: Steps
    nodes: Steps
    has_nodes: bool  # the run has workflow nodes at all (in any scope)


def _fail(message: str, expected: Any, actual: Any, **details: Any) -> Failure:
    return Failure(
        kind=FailureKind.EXPECTATION, message=message, expected=expected, actual=actual, details=details
    )


def shown(names: Sequence[str]) -> str:
    """Names joined with `, `, cut after MAX_SHOWN with a count of the rest; `none` when empty."""
    if not names:
        return "none"
    more = f", … (+{len(names) - MAX_SHOWN} more)" if len(names) > MAX_SHOWN else ""
    return ", ".join(names[:MAX_SHOWN]) + more


def _arrow(names: Sequence[str]) -> str:
    if not names:
        return "(no calls)"
    more = f" -> … (+{len(names) - MAX_SHOWN} more)" if len(names) > MAX_SHOWN else ""
    return " -> ".join(names[:MAX_SHOWN]) + more


def _indexes(indexes: Sequence[int]) -> str:
    return shown([str(index) for index in indexes])


# --- presence -----------------------------------------------------------------------------------------------


def tools_called(check: ToolsCalled, steps: Steps) -> Failure | None:
    """Every listed tool occurs at least once."""
    missing = [tool for tool in check.tools if tool not in steps.where]
    if not missing:
        return None
    called = steps.called()
    noun = "tool" if len(missing) == 1 else "tools"
    return _fail(
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
        f"{tool} ({_times(len(steps.where[tool]))} at index {_indexes(steps.where[tool])})" for tool in found
    ]
    noun = "tool" if len(found) == 1 else "tools"
    return _fail(
        f"Forbidden {noun} used: {'; '.join(parts)}",
        list(check.tools),
        found,
        forbidden_tools_called=found,
        all_called_tools=steps.called(),
    )


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"


# --- sequences ----------------------------------------------------------------------------------------------


def _ordered(expected: Sequence[str], steps: Steps) -> int:
    """How many leading items of `expected` occur in order (greedy, leftmost)."""
    cursor = 0
    for matched, name in enumerate(expected):
        positions = steps.where.get(name)
        if not positions:
            return matched
        found = bisect.bisect_left(positions, cursor)
        if found == len(positions):
            return matched
        cursor = positions[found] + 1
    return len(expected)


def _adjacent(expected: Sequence[str], steps: Steps) -> int | None:
    """The index where `expected` occurs as a contiguous run, or None."""
    if not expected:
        return 0
    size = len(expected)
    target = tuple(expected)
    for start in steps.where.get(expected[0], []):
        if steps.names[start : start + size] == target:
            return start
    return None


def _holds(mode: str, expected: Sequence[str], steps: Steps) -> bool:
    if mode == "ordered":
        return _ordered(expected, steps) == len(expected)
    if mode == "adjacent":
        return _adjacent(expected, steps) is not None
    if mode == "exact":
        return len(expected) == len(steps.names) and tuple(expected) == steps.names
    wanted = Counter(expected)
    if mode == "unordered":
        return wanted == steps.counts
    if mode == "subset":
        return all(count <= wanted[name] for name, count in steps.counts.items())
    return all(steps.counts[name] >= count for name, count in wanted.items())  # superset


def sequence(check: SequenceCheck, steps: Steps) -> Failure | None:
    """The run's tool-name sequence relates to one of the reference sequences (or, forbidden, to none)."""
    holding = [expected for expected in check.sequences if _holds(check.mode, expected, steps)]
    if check.forbidden:
        if not holding:
            return None
        return _forbidden_sequence(check, holding[0], steps)
    if holding:
        return None
    if len(check.sequences) == 1:
        return _sequence_failure(check.mode, check.sequences[0], steps)
    allowed = " | ".join(f"[{', '.join(each)}]" for each in check.sequences)
    return _fail(
        f"Tool sequence did not match any allowed sequence (mode {check.mode}; allowed: {allowed}; "
        f"called: {_arrow(steps.names)})",
        [list(each) for each in check.sequences],
        list(steps.names[:1000]),
        mode=check.mode,
        called_sequence=list(steps.names[:1000]),
    )


def _forbidden_sequence(check: SequenceCheck, expected: Sequence[str], steps: Steps) -> Failure:
    where = ""
    if check.mode == "adjacent":
        where = f" at index {_adjacent(expected, steps)}"
    return _fail(
        f"Forbidden tool sequence occurred ({check.mode}): {_arrow(expected)}{where}; called: "
        f"{_arrow(steps.names)}",
        list(expected),
        list(steps.names[:1000]),
        mode=check.mode,
        forbidden_sequence=list(expected),
    )


def _sequence_failure(mode: str, expected: Sequence[str], steps: Steps) -> Failure:
    called = list(steps.names[:1000])
    if mode == "ordered":
        matched = _ordered(expected, steps)
        first = expected[matched]
        if first not in steps.where:
            message = f"Required tool in sequence not used: {first}"
        else:
            message = f"Tool sequence order was not satisfied: {_arrow(expected)}"
        return _fail(
            f"{message} (in order: {_arrow(expected[:matched]) if matched else 'nothing'}; called: "
            f"{_arrow(steps.names)})",
            list(expected),
            called,
            mode=mode,
            matched=list(expected[:matched]),
            first_unmatched=first,
        )
    if mode == "adjacent":
        return _fail(
            f"Tools were not called one right after another: {_arrow(expected)} (called: "
            f"{_arrow(steps.names)})",
            list(expected),
            called,
            mode=mode,
        )
    if mode == "exact":
        index = next(
            (i for i, (a, b) in enumerate(zip(expected, steps.names, strict=False)) if a != b),
            min(len(expected), len(steps.names)),
        )
        seen = steps.names[index] if index < len(steps.names) else "(end of calls)"
        wanted = expected[index] if index < len(expected) else "(end of calls)"
        return _fail(
            f"Tool sequence did not match any allowed sequence (allowed: {_arrow(expected)}; called: "
            f"{_arrow(steps.names)}; first difference at index {index}: expected {wanted}, got "
            f"{seen})",
            list(expected),
            called,
            mode=mode,
            first_difference={"index": index, "expected": wanted, "actual": seen},
        )
    wanted_counts = Counter(expected)
    missing = sorted((wanted_counts - steps.counts).elements())
    extra = sorted((steps.counts - wanted_counts).elements())
    if mode == "subset":
        missing = []
    if mode == "superset":
        extra = []
    parts = ([f"missing {shown(missing)}"] if missing else []) + (
        [f"not allowed {shown(extra)}"] if extra else []
    )
    return _fail(
        f"Tool calls do not form the {mode} of [{', '.join(expected)}]: {'; '.join(parts)} "
        f"(called: {_arrow(steps.names)})",
        list(expected),
        called,
        mode=mode,
        missing_calls=missing,
        extra_calls=extra,
    )


# --- one tool or node, with arguments --------------------------------------------------------------------


def _step_problems(check: CallCheck, step: Step, scope: Scope) -> list[dict[str, Any]]:
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


def _problem_count(check: CallCheck, step: Step, scope: Scope, limit: int | None = None) -> int:
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


def _step_detail(step: Step) -> dict[str, Any]:
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
    return _fail(
        f"{head}; " + "; ".join(lines),
        failure.expected if failure else [child_failure.expected for _, child_failure in problems],
        failure.actual if failure else [child_failure.actual for _, child_failure in problems],
        **details,
    )


def _nested_without_parent(check: CallCheck, failure: Failure | None, level: Steps) -> Failure:
    """The failure of a node check whose node did not match, so the checks on its calls were not made."""
    reason = _unmatched_parent(check, level)
    head = failure.message if failure else f"{check.name} did not run"
    return _fail(
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
        return f"parent node ran at index {_indexes(where)}, not at index {check.index}"
    return "parent node ran, but did not match"


def _own(check: CallCheck, level: Steps, scope: Scope) -> tuple[Failure | None, list[Step]]:
    """The check on the steps of its own level, and the steps that matched name and arguments (for a
    `called` check without nested checks, the first one is enough)."""
    if check.index is not None:
        return _at_index(check, level, scope)
    candidates = [level.steps[index] for index in level.where.get(check.name, [])]
    rules = _has_argument_rules(check)
    if check.condition == "called" and not check.calls:
        closest: tuple[int, Step] | None = None
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
        return _fail(
            f"{check.name} must not {verb}{what}, but {level.ran(len(matched))} (at index "
            f"{_indexes([step.index for step in matched])})",
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


def _count(check: CallCheck, level: Steps, matched: list[Step]) -> Failure | None:
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
    where = f"at index {_indexes([step.index for step in matched])}; " if matched else ""
    return _fail(
        f"{check.name} {level.ran(count)}{what}, expected {wanted} ({where}{level.seen()})",
        wanted,
        count,
        called_tools=level.called(),
    )


def _not_found(
    check: CallCheck, level: Steps, candidates: list[Step], closest: Step | None, scope: Scope
) -> Failure:
    if closest is None:
        missing = "did not run" if level.nodes else "was not called"
        return _fail(
            f"{check.name} {missing} ({level.seen()})",
            check.name,
            level.called(),
            called_tools=level.called(),
        )
    step, problems = closest, _step_problems(check, closest, scope)
    reasons = "; ".join(problem["message"] for problem in problems)
    return _fail(
        f"no {level.unit} of {check.name} matched ({_times(len(candidates))} "
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


def _at_index(check: CallCheck, level: Steps, scope: Scope) -> tuple[Failure | None, list[Step]]:
    index = check.index if check.index is not None else 0
    if index >= len(level.steps):
        if check.condition == "not_called":
            return None, []
        there = (
            f"only {len(level.steps)} nodes ran"
            if level.nodes
            else f"there are only {len(level.steps)} calls"
        )
        return _fail(
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
        return _fail(
            f"{check.name} must not be the {level.unit} at index {index}, but it is",
            {"index": index, "not": check.name},
            _step_detail(step),
        ), [step]
    if not problems:
        return None, [step]
    reasons = "; ".join(problem["message"] for problem in problems)
    return _fail(
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
        return _fail(
            f"tool not used: {check.tool} (called: {shown(called)})", check.tool, called, called_tools=called
        )
    try:
        if any(_input_holds(check, call.arguments) for call in mine):
            return None
    except (ValueError, PathSyntaxError) as error:
        return _fail(str(error), check.value, None)
    seen = [call.arguments for call in mine[:MAX_SHOWN]]
    if check.op == "contains":
        wanted = f"containing {check.value!r} (case-insensitive)"
    elif check.op == "regex":
        wanted = f"matching /{check.value}/"
    else:
        wanted = f"with {check.value}" + (
            f" equal to {compact_json(check.equals)}" if check.has_equals else ""
        )
    return _fail(
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
