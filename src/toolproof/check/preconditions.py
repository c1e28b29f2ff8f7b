"""Preconditions of checks (PromptKit `when`): whether a check applies to the tool calls of its scope."""

from __future__ import annotations

from collections.abc import Sequence

from toolproof.core.gofmt import quote
from toolproof.core.re2_patterns import RE2PatternError, compile_re2
from toolproof.model.scenario import Precondition
from toolproof.model.transcript import ToolCall


def unmet(when: Precondition, calls: Sequence[ToolCall]) -> str | None:
    """Why the precondition does not hold for `calls` (the first condition that fails), or None."""
    names = [call.tool for call in calls]
    if when.any_tool_called and not names:
        return "no tool was called"
    if when.tool_called is not None and when.tool_called not in names:
        return f"tool {quote(when.tool_called)} was not called"
    if when.tool_called_pattern is not None:
        try:
            pattern = compile_re2(when.tool_called_pattern)
        except RE2PatternError as error:
            return str(error)
        if not any(pattern.search(name) for name in names):
            return f"no called tool matches {quote(when.tool_called_pattern)}"
    if len(names) < when.min_tool_calls:
        return f"only {len(names)} tool call(s), needs {when.min_tool_calls}"
    return None
