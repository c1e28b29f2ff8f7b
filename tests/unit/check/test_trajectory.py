"""mcp-assert `trajectory:` checks, loaded onto the agent tool-call checks and run over a trace, and JSONL
audit logs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.unit.agent.builders import CLOCK

from toolproof.check.scenario import evaluate
from toolproof.load.mcp_assert import load
from toolproof.model.result import Failure, FailureKind, Status
from toolproof.model.scenario import (
    AgentCase,
    CallCheck,
    SequenceCheck,
    TextMatcher,
    ToolsCalled,
    ToolsNotCalled,
)
from toolproof.model.server_case import Case, TrajectoryBlock
from toolproof.model.transcript import ToolCall
from toolproof.run.trajectory import run_trajectory
from toolproof.sources.traces import read_traces
from toolproof.sources.traces.audit_log import AuditLogError, parse_audit_log

TRACE = [
    ToolCall(tool="read", arguments={"path": "a", "n": 1, "o": {"x": 1, "y": [1, 2]}, "f": 2.0}),
    ToolCall(tool="edit", arguments={"path": "b"}),
    ToolCall(tool="read", arguments={"path": "c"}),
]


def block(*checks: dict[str, Any], trace: list[ToolCall] = TRACE) -> TrajectoryBlock:
    written = [{"tool": call.tool, "args": call.arguments} for call in trace]
    [case] = load({"trajectory": list(checks), "trace": written}, Path("case.yaml"))
    assert isinstance(case, Case) and isinstance(case.block, TrajectoryBlock)
    return case.block


def check(*checks: dict[str, Any], trace: list[ToolCall] = TRACE) -> Failure | None:
    return run_trajectory(block(*checks, trace=trace), Path("."), None)


def test_each_trajectory_check_is_loaded_onto_the_agent_check_of_the_same_meaning() -> None:
    loaded = block(
        {"type": "order", "tools": ["read", "edit"]},
        {"type": "presence", "tools": ["read"]},
        {"type": "absence", "tools": ["zap"]},
        {"type": "args_contain", "tool": "read", "args": {"n": 1}},
    ).checks
    assert [type(each) for each in loaded] == [SequenceCheck, ToolsCalled, ToolsNotCalled, CallCheck]
    unplaced = [each.model_copy(update={"line": 0, "column": 0}) for each in loaded]
    assert unplaced[0] == SequenceCheck(mode="ordered", sequences=(("read", "edit"),), label="order")
    assert unplaced[3] == CallCheck(name="read", arguments={"n": TextMatcher(value=1)}, label="args_contain")


# Verdicts as mcp-assert 0.12.3 gave them on this trace (offline `trajectory:` suites, 2026-11-22).
VERDICTS = [
    ([{"type": "order", "tools": ["read", "edit", "read"]}], True),
    ([{"type": "order", "tools": ["edit", "read", "read"]}], False),
    ([{"type": "order", "tools": ["read", "read", "edit"]}], False),
    ([{"type": "order", "tools": []}], True),
    ([{"type": "presence", "tools": ["read", "zap"]}], False),
    ([{"type": "presence", "tools": ["edit", "read"]}], True),
    ([{"type": "absence", "tools": ["zap", "edit"]}], False),
    ([{"type": "absence", "tools": ["zap"]}], True),
    ([{"type": "args_contain", "tool": "read", "args": {"n": "1"}}], True),  # compared in Go %v form
    ([{"type": "args_contain", "tool": "read", "args": {"f": 2}}], True),
    ([{"type": "args_contain", "tool": "read", "args": {"o": {"y": [1, 2], "x": 1}}}], True),
    ([{"type": "args_contain", "tool": "read", "args": {"o": {"x": 1}}}], False),  # nested objects whole
    ([{"type": "args_contain", "tool": "read", "args": {}}], True),
    ([{"type": "args_contain", "tool": "zap", "args": {}}], False),
    ([{"type": "args_contain", "tool": "read", "args": {"zz": None}}], False),
]


@pytest.mark.parametrize(("checks", "passes"), VERDICTS)
def test_verdicts_match_mcp_assert(checks: list[dict[str, Any]], passes: bool) -> None:
    assert (check(*checks) is None) is passes


@pytest.mark.parametrize(("checks", "passes"), VERDICTS)
def test_an_audit_log_gets_the_same_verdicts_under_run_and_check_traces(
    tmp_path: Path, checks: list[dict[str, Any]], passes: bool
) -> None:
    log = tmp_path / "audit.jsonl"
    log.write_text("".join(json.dumps({"tool": call.tool, "args": call.arguments}) + "\n" for call in TRACE))
    [case] = load({"trajectory": checks, "audit_log": str(log)}, Path("case.yaml"))
    assert isinstance(case, Case) and isinstance(case.block, TrajectoryBlock)
    under_run = run_trajectory(case.block, tmp_path, None) is None
    [recorded] = read_traces(log)
    agent_case = AgentCase(name="c", source=case.source, dialect="test", assertions=case.block.checks)
    under_check = evaluate(agent_case, recorded, clock=CLOCK).status is Status.PASS
    assert under_run is under_check is passes


def test_a_relative_audit_log_found_nowhere_names_both_places_looked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite, elsewhere = tmp_path / "suite", tmp_path / "elsewhere"
    suite.mkdir()
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    block = TrajectoryBlock(checks=(ToolsCalled(tools=("t",)),), audit_log="logs/audit.jsonl")
    failure = run_trajectory(block, suite, None)
    assert failure is not None and failure.kind is FailureKind.CONFIG
    assert failure.message == (
        f"cannot read audit_log {suite / 'logs/audit.jsonl'}: No such file or directory"
        f" (nor logs/audit.jsonl in the working directory {elsewhere})"
    )
    (elsewhere / "logs").mkdir()
    (elsewhere / "logs/audit.jsonl").write_text('{"tool": "t", "args": {}}\n')
    assert run_trajectory(block, suite, None) is None  # the working directory is looked in first


def test_args_contain_passes_when_any_call_matches() -> None:
    # mcp-assert 0.12.3 looks at the first call only and fails this; semantics.md asks for any call
    assert check({"type": "args_contain", "tool": "read", "args": {"path": "c"}}) is None


def test_order_messages() -> None:
    failure = check({"type": "order", "tools": ["edit", "read", "read"]})
    assert failure is not None
    assert failure.kind is FailureKind.EXPECTATION
    assert failure.check == "order"
    assert failure.message == (
        "order: Tool sequence order was not satisfied: edit -> read -> read (in order: edit -> read; "
        "called: read -> edit -> read)"
    )
    assert (failure.expected, failure.actual) == (["edit", "read", "read"], ["read", "edit", "read"])
    failure = check({"type": "order", "tools": ["read", "zap"]})
    assert failure is not None
    assert failure.message.startswith("order: Required tool in sequence not used: zap")


def test_presence_and_absence_messages() -> None:
    failure = check({"type": "presence", "tools": ["zap", "read", "zip"]})
    assert failure is not None
    assert failure.message == "presence: Required tools not used: zap, zip (called: read, edit)"
    failure = check({"type": "absence", "tools": ["read", "zap", "edit"]})
    assert failure is not None
    assert failure.message == (
        "absence: Forbidden tools used: read (2 times at index 0, 2); edit (once at index 1)"
    )


def test_args_contain_messages() -> None:
    failure = check({"type": "args_contain", "tool": "read", "args": {"path": "z", "n": 1}})
    assert failure is not None
    assert failure.message == (
        "args_contain: no call of read matched (2 times called); closest is index 0: "
        "argument 'path' = \"a\" is not \"z\""
    )
    failure = check({"type": "args_contain", "tool": "zap"})
    assert failure is not None
    assert failure.message == "args_contain: zap was not called (called: read, edit)"
    failure = check({"type": "args_contain", "tool": "zap", "args": {"path": "a"}}, trace=[])
    assert failure is not None and failure.message == "args_contain: zap was not called (called: none)"
    assert check({"type": "args_contain", "args": {"a": 1}}) is not None  # names no tool: fails (mcp-assert)


def test_long_traces_are_shortened_in_messages() -> None:
    trace = [ToolCall(tool=f"t{i}") for i in range(35)]
    failure = check({"type": "presence", "tools": ["zap"]}, trace=trace)
    assert failure is not None
    assert failure.message.endswith(", t28, t29, … (+5 more))")


def test_first_failing_check_wins() -> None:
    failure = check(
        {"type": "presence", "tools": ["read"]}, {"type": "absence", "tools": ["edit"]},
        {"type": "order", "tools": ["zap"]},
    )
    assert failure is not None and failure.check == "absence"


def test_a_malformed_check_is_a_load_error_at_its_line() -> None:
    [error] = load({"trajectory": [{"type": "sideways"}]}, Path("case.yaml"))
    assert not isinstance(error, Case)
    assert error.field == "trajectory[0].type"


@given(st.lists(st.sampled_from("abcd"), max_size=12), st.data())
def test_order_accepts_every_subsequence(calls: list[str], data: st.DataObject) -> None:
    trace = [ToolCall(tool=tool) for tool in calls]
    keep = data.draw(st.lists(st.booleans(), min_size=len(calls), max_size=len(calls)))
    tools = [tool for tool, kept in zip(calls, keep, strict=True) if kept]
    assert check({"type": "order", "tools": tools}, trace=trace) is None


@given(st.lists(st.sampled_from("ab"), max_size=8))
def test_order_rejects_more_repeats_than_happened(calls: list[str]) -> None:
    trace = [ToolCall(tool=tool) for tool in calls]
    assert check({"type": "order", "tools": ["a"] * (calls.count("a") + 1)}, trace=trace) is not None


def test_parse_audit_log() -> None:
    text = "\n".join([
        '{"action": "tool_call", "tool": "read", "args": {"path": "a"}}',
        "",
        '{"action": "session_start"}',
        '  {"tool": "edit"}  ',
        '{"tool": "", "args": {}}',
        '{"tool": 5}',
        "null",
        '{"tool": "write", "args": [1]}',
    ])
    assert parse_audit_log(text) == [
        ToolCall(tool="read", arguments={"path": "a"}),
        ToolCall(tool="edit", position=1),
        ToolCall(tool="write", position=2),
    ]
    assert parse_audit_log("") == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"tool": "a"}\n{"tool": "b",\n', "line 2: invalid JSON (Expecting property name enclosed in"),
        ('{"tool": "a"}\n\n[1]', "line 3: expected a JSON object, got an array"),
        ('"x"', "line 1: expected a JSON object, got a string"),
    ],
)
def test_malformed_audit_lines_name_the_line(text: str, message: str) -> None:
    with pytest.raises(AuditLogError) as caught:
        parse_audit_log(text)
    assert str(caught.value).startswith(message)
    assert isinstance(caught.value, ValueError)
