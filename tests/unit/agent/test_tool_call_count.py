"""`tool_call_count`: how many times a tool (or any tool) was called, within min/max/exactly, in the scenario
format and PromptKit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.unit.agent.builders import case, check, conversation, evaluate_case, run, turn

from toolproof.load import promptkit, scenario_file
from toolproof.load.errors import LoadError
from toolproof.model.result import Status
from toolproof.model.scenario import AgentCase, AgentTurn, ToolCallCount

CALLS = run("search", "read", "search", "search", "write")


@pytest.mark.parametrize(
    ("bounds", "status"),
    [
        ({"tool": "search", "count": 3}, Status.PASS),
        ({"tool": "search", "count": 2}, Status.FAIL),
        ({"tool": "search", "min_count": 1, "max_count": 3}, Status.PASS),
        ({"tool": "search", "max_count": 2}, Status.FAIL),
        ({"tool": "search", "min_count": 4}, Status.FAIL),
        ({"tool": "delete", "max_count": 0}, Status.PASS),
        ({"tool": "delete", "min_count": 1}, Status.FAIL),
        ({"max_count": 5}, Status.PASS),  # every tool
        ({"max_count": 4}, Status.FAIL),
        ({"count": 5, "max_count": 4}, Status.FAIL),  # every bound must hold
    ],
)
def test_bounds(bounds: dict[str, Any], status: Status) -> None:
    assert check(ToolCallCount(**bounds), CALLS).status is status


def test_the_failure_says_how_many_calls_and_what_was_expected() -> None:
    outcome = check(ToolCallCount(tool="search", min_count=1, max_count=2), CALLS)
    assert outcome.failure is not None
    assert outcome.failure.message == (
        "search called 3 times, expected at least 1, at most 2 (called: search, read, search, search, write)"
    )
    assert (outcome.failure.expected, outcome.failure.actual) == ({"count": None, "min": 1, "max": 2}, 3)
    assert outcome.label == "tool_call_count search: at least 1, at most 2"
    assert check(ToolCallCount(max_count=1), run()).status is Status.PASS


@given(st.lists(st.sampled_from("abc"), max_size=12), st.integers(0, 12))
def test_exactly_counts_the_calls_of_the_tool(calls: list[str], wanted: int) -> None:
    passed = check(ToolCallCount(tool="a", count=wanted), run(*calls)).status is Status.PASS
    assert passed is (calls.count("a") == wanted)


def test_a_turn_check_counts_only_its_turn() -> None:
    turns = (AgentTurn(user="one", assertions=(ToolCallCount(tool="t", count=1),)), AgentTurn(user="two"))
    observed = conversation(turn("t"), turn("t", "t"))
    assert evaluate_case(case(turns=turns), observed).status is Status.PASS
    whole = case(ToolCallCount(tool="t", count=1), turns=turns)
    assert evaluate_case(whole, observed).status is Status.FAIL


def _scenario(item: Any) -> AgentCase | LoadError:
    (found,) = scenario_file.load({"expect": [{"tool_call_count": item}]}, Path("case.yaml"))
    return found


def test_scenario_format_spelling() -> None:
    loaded = _scenario({"tool": "search", "min": 1, "max": 3})
    assert isinstance(loaded, AgentCase)
    assert loaded.assertions[0].model_copy(update={"line": 0, "column": 0}) == ToolCallCount(
        tool="search", min_count=1, max_count=3
    )
    every = _scenario({"exactly": 0})
    assert isinstance(every, AgentCase) and every.assertions[0] == ToolCallCount(count=0, line=1, column=1)


@pytest.mark.parametrize(
    ("item", "field", "message"),
    [
        ({"tool": "t"}, "expect[0].tool_call_count", "give exactly, min or max"),
        ({"max": -1}, "expect[0].tool_call_count.max", ""),
        ({"tools": ["t"], "max": 1}, "expect[0].tool_call_count.tools", "unknown key"),
    ],
)
def test_scenario_format_errors(item: Any, field: str, message: str) -> None:
    error = _scenario(item)
    assert isinstance(error, LoadError) and error.field == field and message in error.message, str(error)


def _promptkit(params: dict[str, Any]) -> AgentCase | LoadError:
    data = {
        "apiVersion": "promptkit.altairalabs.ai/v1alpha1",
        "kind": "Scenario",
        "spec": {
            "turns": [{"role": "user", "content": "x"}],
            "conversation_assertions": [{"type": "tool_call_count", "params": params}],
        },
    }
    (found,) = promptkit.load(data, Path("s.yaml"))
    return found


def test_promptkit_spelling() -> None:
    loaded = _promptkit({"tool": "search", "min": 1, "max": 2})
    assert isinstance(loaded, AgentCase)
    (assertion,) = loaded.assertions
    assert assertion.model_copy(update={"line": 0, "column": 0}) == ToolCallCount(
        tool="search", min_count=1, max_count=2
    )
    assert evaluate_case(loaded, CALLS).status is Status.FAIL
    unbounded = _promptkit({})  # as PromptKit: no bound, any number passes
    assert isinstance(unbounded, AgentCase) and evaluate_case(unbounded, CALLS).status is Status.PASS
    error = _promptkit({"tool": "t", "exactly": 2})
    assert isinstance(error, LoadError) and error.field.endswith("params.exactly")
