"""A case's failure is data, not an exception: any observed run gets a verdict for every check."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.unit.agent.builders import case, evaluate_case

from toolproof.model.result import Status
from toolproof.model.scenario import (
    AnyMatcher,
    CallCheck,
    ContainsMatcher,
    DateMatcher,
    ExactMatcher,
    FieldCheck,
    JsonPathCheck,
    LatencyCheck,
    OneOfMatcher,
    RegexCheck,
    RegexMatcher,
    SchemaCheck,
    SequenceCheck,
    StatusCheck,
    TextCheck,
    TokenLimitCheck,
    ToolInputCheck,
    ToolsCalled,
)
from toolproof.model.transcript import Node, ToolCall, Transcript, Turn

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("abcq"), inner, max_size=3),
    max_leaves=8,
)
NAMES = st.sampled_from(["search", "book", "Agent", "pay"])
CALL = st.builds(ToolCall, tool=NAMES, arguments=JSON, result=JSON, is_error=st.booleans())
TURN = st.builds(
    Turn,
    user=st.text(max_size=5),
    reply=st.text(max_size=20) | JSON.map(str),
    calls=st.lists(CALL, max_size=4).map(tuple),
    nodes=st.lists(
        st.builds(Node, name=NAMES, arguments=JSON, output=JSON, calls=st.lists(CALL, max_size=2).map(tuple)),
        max_size=2,
    ).map(tuple),
    body=JSON,
    http_status=st.none() | st.integers(100, 599),
    duration_ms=st.none() | st.floats(0, 1e4),
)
RUN = st.builds(Transcript, turns=st.lists(TURN, max_size=3).map(tuple))

CHECKS: tuple[Any, ...] = (
    ToolsCalled(tools=("search",)),
    CallCheck(
        name="search",
        arguments={"q": ContainsMatcher(value="a"), "a": ExactMatcher(value=[1, "*"])},
        strict=True,
        forbidden_values={"*": RegexMatcher(pattern="x")},
    ),
    CallCheck(
        name="Agent",
        level="auto",
        calls=(CallCheck(name="pay", index=0), CallCheck(name="book", condition="count", max_count=1)),
    ),
    CallCheck(
        name="book",
        arguments={
            "b": DateMatcher(expression="TODAY", tolerance_minutes=60),
            "c": OneOfMatcher(variants=(AnyMatcher(), ExactMatcher(value=None))),
        },
    ),
    SequenceCheck(mode="unordered", sequences=(("search", "book"),)),
    ToolInputCheck(tool="search", op="jsonpath", value="$..q", has_equals=True, equals="a"),
    TextCheck(op="contains", values=("a",)),
    RegexCheck(pattern=r"\d", flavor="js"),
    JsonPathCheck(path="$.a[0]", mode="equals", equals=1),
    FieldCheck(field="a.0.b", expected=ExactMatcher(value=True), negate=True),
    SchemaCheck(json_schema={"type": "object"}, field="a"),
    StatusCheck(expected=200),
    LatencyCheck(max_ms=10),
    TokenLimitCheck(max_total=5),
)


@settings(max_examples=60, deadline=None)
@given(RUN)
def test_every_check_gets_a_verdict(observed: Transcript) -> None:
    evaluation = evaluate_case(case(*CHECKS), observed)
    assert len(evaluation.outcomes) == len(CHECKS)
    for outcome in evaluation.outcomes:
        assert outcome.status in (Status.PASS, Status.FAIL, Status.SKIP)
        if outcome.status is Status.FAIL:
            assert outcome.failure is not None and outcome.failure.message


def _some(keys: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(st.sampled_from(keys), DOCUMENT, max_size=3)


DOCUMENT = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 300) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("abtypq"), inner, max_size=3),
    max_leaves=10,
)
MIBO_TARGETS = st.sampled_from(
    ["node_call", "json_match", "token_limit", "response_regex", "json_schema", "x"]
)
MIBO = st.fixed_dictionaries(
    {"scenario": st.text(max_size=3), "input_utterance": st.text(max_size=3)},
    optional={
        "context": DOCUMENT,
        "assertions": st.fixed_dictionaries(
            {},
            optional={
                "semantic": DOCUMENT,
                "procedural": st.lists(
                    st.fixed_dictionaries(
                        {"target": MIBO_TARGETS},
                        optional={
                            key: DOCUMENT
                            for key in (
                                "expected_name",
                                "expected_arguments",
                                "expected_tool_calls",
                                "condition",
                                "field",
                                "expected_value",
                                "schema",
                                "pattern",
                                "depends_on",
                                "id",
                            )
                        },
                    ),
                    max_size=3,
                ),
            },
        ),
    },
)
OWN = st.fixed_dictionaries(
    {
        "expect": st.lists(
            _some(
                [
                    "called",
                    "not_called",
                    "count",
                    "sequence",
                    "node",
                    "tool_input",
                    "reply",
                    "regex",
                    "jsonpath",
                    "field",
                    "schema",
                    "http_status",
                    "latency",
                    "tokens",
                    "guardrail",
                    "judge",
                    "id",
                    "depends_on",
                ]
            ),
            max_size=3,
        )
    },
    optional={"turns": DOCUMENT, "context": DOCUMENT},
)
MCPLAB = st.fixed_dictionaries(
    {
        "id": st.text(max_size=3),
        "prompt": st.text(max_size=3),
        "eval": _some(
            [
                "tool_constraints",
                "tool_sequence",
                "response_assertions",
                "tool_input_assertions",
                "agent_assertions",
                "agent_context",
            ]
        ),
    }
)
PROMPTKIT = st.fixed_dictionaries(
    {
        "apiVersion": st.just("promptkit.altairalabs.ai/v1alpha1"),
        "kind": st.just("Scenario"),
        "spec": st.fixed_dictionaries(
            {},
            optional={
                "conversation_assertions": DOCUMENT,
                "turns": st.lists(
                    st.fixed_dictionaries(
                        {"role": st.sampled_from(["user", "assistant"])},
                        optional={
                            "content": DOCUMENT,
                            "assertions": st.lists(
                                st.fixed_dictionaries(
                                    {
                                        "type": st.sampled_from(
                                            [
                                                "content_includes",
                                                "tools_called",
                                                "tool_calls_with_args",
                                                "guardrail_triggered",
                                                "x",
                                            ]
                                        )
                                    },
                                    optional={"params": DOCUMENT},
                                ),
                                max_size=3,
                            ),
                        },
                    ),
                    max_size=2,
                ),
            },
        ),
    }
)


@settings(max_examples=200, deadline=None)
@given(MIBO | OWN | MCPLAB | PROMPTKIT)
def test_loaders_never_raise(data: dict[str, Any]) -> None:
    from pathlib import Path

    from toolproof.load import mcplab, mibo, promptkit, scenario_file
    from toolproof.load.errors import LoadError
    from toolproof.model.scenario import AgentCase

    detected = [dialect for dialect in (mcplab, mibo, promptkit, scenario_file) if dialect.detect(data)]
    assert detected
    for item in detected[0].load(data, Path("fuzz.yaml")):
        assert isinstance(item, AgentCase | LoadError)


TRACE_KEYS = st.sampled_from(
    [
        "text",
        "name",
        "id",
        "type",
        "role",
        "content",
        "input",
        "output",
        "tool",
        "arguments",
        "status",
        "data",
        "nodes",
        "usedTools",
        "tools_called",
        "parameters",
        "attributes",
        "messages",
        "parts",
        "tool_use_id",
        "metadata",
        "http_status",
    ]
)
TRACE_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 10**19) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TRACE_KEYS, inner, max_size=4),
    max_leaves=12,
)
SPAN_IDS = st.sampled_from(["a", "b", "c"])
TRACE_DOCUMENTS = st.one_of(
    st.fixed_dictionaries({"data": TRACE_JSON}, optional={"metadata": TRACE_JSON}),
    st.fixed_dictionaries(
        {
            "spans": st.lists(
                st.fixed_dictionaries(
                    {"span_id": SPAN_IDS},
                    optional={
                        "parent_span_id": SPAN_IDS | st.none(),
                        "name": TRACE_JSON,
                        "attributes": TRACE_JSON,
                        "status": TRACE_JSON,
                        "start_time_unix_nano": TRACE_JSON,
                    },
                ),
                min_size=1,
                max_size=4,
            )
        }
    ),
    st.fixed_dictionaries(
        {
            "resourceSpans": st.lists(
                st.fixed_dictionaries(
                    {
                        "scopeSpans": st.lists(
                            st.fixed_dictionaries(
                                {
                                    "spans": st.lists(
                                        st.fixed_dictionaries(
                                            {"traceId": st.sampled_from(["t1", "t2"]), "spanId": SPAN_IDS},
                                            optional={
                                                "parentSpanId": SPAN_IDS,
                                                "status": TRACE_JSON,
                                                "attributes": st.lists(
                                                    st.fixed_dictionaries(
                                                        {
                                                            "key": st.sampled_from(
                                                                [
                                                                    "gen_ai.tool.name",
                                                                    "gen_ai.operation.name",
                                                                    "gen_ai.output.messages",
                                                                    "gen_ai.tool.call.id",
                                                                    "n8n.node.type",
                                                                ]
                                                            ),
                                                            "value": TRACE_JSON,
                                                        }
                                                    ),
                                                    max_size=3,
                                                ),
                                            },
                                        ),
                                        max_size=4,
                                    )
                                }
                            ),
                            max_size=2,
                        )
                    }
                ),
                max_size=2,
            )
        }
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("scenario_run"),
            "messages": st.lists(
                st.fixed_dictionaries(
                    {"role": st.sampled_from(["user", "assistant", "tool"])},
                    optional={"content": TRACE_JSON, "usage": TRACE_JSON},
                ),
                max_size=4,
            ),
        }
    ),
)


@settings(max_examples=200, deadline=None)
@given(TRACE_DOCUMENTS)
def test_trace_readers_raise_only_trace_errors(document: dict[str, Any]) -> None:
    import json
    import tempfile
    from pathlib import Path

    from toolproof.sources.traces import TraceError, read_traces

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "trace.json"
        path.write_text(json.dumps(document))
        try:
            runs = read_traces(path)
        except TraceError:
            return
    assert all(isinstance(run, Transcript) for run in runs)
