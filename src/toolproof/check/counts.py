"""The tool call count check: how many times a tool (or any tool) was called in the scope."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolproof.check.failures import fail
from toolproof.check.registry import Verdict, checker
from toolproof.check.steps import shown
from toolproof.core.gofmt import counted
from toolproof.model.result import Failure
from toolproof.model.scenario import ToolCallCount

if TYPE_CHECKING:
    from toolproof.check.run_view import Scoped


def _bounds(check: ToolCallCount) -> str:
    """`exactly 2`, `at least 1, at most 3`: the bounds the check gives."""
    given = (("exactly", check.count), ("at least", check.min_count), ("at most", check.max_count))
    parts = [f"{word} {bound}" for word, bound in given if bound is not None]
    return ", ".join(parts) or "any number"


def tool_call_count(check: ToolCallCount, called: list[str]) -> Failure | None:
    """The number of calls of the check's tool (any tool when it names none) among `called` within every
    bound the check gives."""
    made = sum(1 for tool in called if check.tool is None or tool == check.tool)
    within = (
        (check.count is None or made == check.count)
        and (check.min_count is None or made >= check.min_count)
        and (check.max_count is None or made <= check.max_count)
    )
    if within:
        return None
    what = check.tool if check.tool is not None else "tools"
    return fail(
        None,
        f"{what} called {counted(made, 'time')}, expected {_bounds(check)} (called: {shown(called)})",
        {"count": check.count, "min": check.min_count, "max": check.max_count},
        made,
        tool=check.tool,
    )


def _describe(check: ToolCallCount) -> str:
    return f"tool_call_count {check.tool or '(any tool)'}: {_bounds(check)}"


@checker(ToolCallCount, describe=_describe, looks_at=lambda c: None if c.tool is None else (c.tool,))
def _tool_call_count(check: ToolCallCount, at: Scoped) -> Verdict:
    return tool_call_count(check, [call.tool for call in at.raw_calls])
