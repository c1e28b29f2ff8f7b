"""Token usage in every format of seed 002 and OpenTelemetry, read by the sources and summed by the checks;
missing usage is not evaluated."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.unit.agent.builders import check, conversation, node, run, turn, workflow

from toolproof.check.usage import summed_usage
from toolproof.model.result import Status
from toolproof.model.scenario import TokenLimitCheck
from toolproof.model.transcript import Usage
from toolproof.sources.traces import read_traces
from toolproof.sources.traces.usage import usage_records, with_found_usage


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            {"text": "hi", "usage": {"prompt_tokens": 120, "completion_tokens": 80, "total_tokens": 200}},
            (120, 80, 200),
        ),
        ({"usage": {"input_tokens": 30, "output_tokens": 12}}, (30, 12, 42)),
        (
            {"usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 7, "totalTokenCount": 12}},
            (5, 7, 12),
        ),
        ({"usageMetadata": {"input_tokens": 4, "output_tokens": 6, "total_tokens": 10}}, (4, 6, 10)),
        ({"meta": {"tokens": 99}}, (None, None, 99)),
        ({"meta": {"tokens": {"total": 50, "input": 20, "output": 30}}}, (20, 30, 50)),
        ({"attributes": {"gen_ai.usage.input_tokens": 11, "gen_ai.usage.output_tokens": 3}}, (11, 3, 14)),
        ({"tokenUsage": {"promptTokens": 8, "completionTokens": 2, "totalTokens": 10}}, (8, 2, 10)),
    ],
)
def test_each_format(body: dict[str, Any], expected: tuple[int | None, int | None, int]) -> None:
    (found,) = usage_records(body)
    assert (found.input_tokens, found.output_tokens, found.total) == expected


def test_records_anywhere_are_summed() -> None:
    body = {
        "nodes": [
            {"output": {"usage": {"input_tokens": 10, "output_tokens": 5}}},
            {"output": [{"usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 2}}]},
        ]
    }
    turns = [turn(body=body), turn(usage=Usage(input_tokens=100, output_tokens=1))]
    # the checks read only the typed usage; the source reads the body's records into it
    assert summed_usage(turns) == Usage(input_tokens=100, output_tokens=1)
    usage = summed_usage([with_found_usage(each) for each in turns])
    assert usage == Usage(input_tokens=111, output_tokens=8, total_tokens=119)


def test_node_outputs_count_when_there_is_no_body() -> None:
    observed = workflow(
        node("OpenAI", output={"usage": {"prompt_tokens": 700, "completion_tokens": 300}}),
        node("Claude", output={"usage": {"input_tokens": 100, "output_tokens": 50}}),
    )
    assert check(TokenLimitCheck(max_total=1200), observed).passed
    failed = check(TokenLimitCheck(max_total=1000, max_output=400), observed).failure
    assert failed is not None
    assert failed.message == "token limit exceeded: total tokens 1150 > 1000"
    assert failed.actual == {"input": 800, "output": 350, "total": 1150}


def test_limits_over_the_whole_conversation() -> None:
    observed = conversation(
        turn(usage=Usage(input_tokens=2000, output_tokens=900)),
        turn(usage=Usage(input_tokens=1000, output_tokens=200)),
    )
    assert check(TokenLimitCheck(max_total=4100, max_output=1100), observed).passed
    assert not check(TokenLimitCheck(max_total=4000), observed).passed
    assert not check(TokenLimitCheck(max_input=2999), observed).passed


def test_no_usage_is_not_evaluated_never_a_pass() -> None:
    outcome = check(TokenLimitCheck(max_total=10), run(reply="hi", body={"text": "hi"}))
    assert outcome.status is Status.SKIP
    assert outcome.reason == "not evaluated: no token usage found in the run"
    partial = check(TokenLimitCheck(max_output=10), run(body={"meta": {"tokens": 5}}))
    assert partial.status is Status.SKIP


@given(st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 10_000)), min_size=1, max_size=6))
def test_sum_of_turns(pairs: list[tuple[int, int]]) -> None:
    turns = [turn(usage=Usage(input_tokens=a, output_tokens=b)) for a, b in pairs]
    usage = summed_usage(turns)
    assert usage is not None
    assert usage.input_tokens == sum(a for a, _ in pairs)
    assert usage.total == sum(a + b for a, b in pairs)


def test_recorded_usage_is_not_counted_again_from_node_outputs() -> None:
    """A root span's usage already counts the model calls whose outputs hold usage records."""
    model = node("OpenAI Chat Model", output={"tokenUsage": {"promptTokens": 100, "completionTokens": 50}})
    recorded = turn(usage=Usage(input_tokens=100, output_tokens=50), nodes=(model,))
    for scope in ([with_found_usage(recorded)], [with_found_usage(turn(nodes=(model,)))]):
        usage = summed_usage(scope)
        assert usage is not None and (usage.input_tokens, usage.output_tokens, usage.total) == (100, 50, 150)


def test_canonical_trace_usage_counts_once(tmp_path: Path) -> None:
    output = {"response": {"generations": []}, "tokenUsage": {"promptTokens": 100, "completionTokens": 50}}
    spans = [
        {
            "span_id": "r",
            "parent_span_id": None,
            "name": "workflow",
            "attributes": {"gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 50},
        },
        {
            "span_id": "a",
            "parent_span_id": "r",
            "name": "OpenAI Chat Model",
            "attributes": {"n8n.node.output": json.dumps(output)},
        },
    ]
    path = tmp_path / "trace.json"
    path.write_text(json.dumps({"spans": spans}))
    (observed,) = read_traces(path)
    assert check(TokenLimitCheck(max_total=150), observed).passed
    failed = check(TokenLimitCheck(max_total=149), observed).failure
    assert failed is not None and failed.actual == {"input": 100, "output": 50, "total": 150}
