"""Recorded runs from every trace format, read into the one transcript model."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from tests.unit.agent.builders import case, evaluate_case, only_case

from toolproof.load import mcplab, mibo
from toolproof.model.result import FailureKind, Status
from toolproof.model.scenario import CallCheck, TextCheck
from toolproof.model.transcript import Transcript, Usage
from toolproof.sources.traces import TraceError, read_traces

DATA = Path(__file__).parent / "data"
TRACES = DATA / "traces"


def one(name: str, **options: Any) -> Transcript:
    (run,) = read_traces(TRACES / name, **options)  # an absolute name is used as it is
    return run


def names(run: Transcript) -> list[str]:
    return [call.tool for turn in run.turns for call in turn.all_calls()]


def test_mcplab_trace_runs() -> None:
    first, second = read_traces(TRACES / "mcplab_trace.jsonl")
    assert (first.scenario, first.run, second.run) == (
        "refund-order",
        "claude-haiku run 0",
        "claude-haiku run 1",
    )
    (turn,) = first.turns
    assert turn.user == "Please refund my last order." and turn.reply == "Your refund processed."
    assert names(first) == ["lookup_account", "verify_identity", "process_refund"]
    refund = turn.calls[2]
    assert (refund.is_error, refund.result, refund.duration_ms) == (True, "refund limit exceeded", 400.0)
    assert turn.calls[0].arguments == {"email": "ada@example.com"}
    assert turn.usage == Usage(input_tokens=1200, output_tokens=95, total_tokens=1295)
    assert turn.duration_ms == 4500.0
    assert (first.provider, first.model) == ("anthropic", "claude-haiku")
    assert first.request_ids == ("mcplab-run:r1:refund-order:claude-haiku:1-run0",)
    case = only_case(DATA / "mcplab" / "ordered_sequence.yaml", mcplab.load)
    assert evaluate_case(case, first).status is Status.PASS
    assert evaluate_case(case, second).status is Status.FAIL


def test_a_user_message_opens_a_turn(tmp_path: Path) -> None:
    record = {
        "type": "scenario_run",
        "scenario_id": "s",
        "messages": [
            {"role": "user", "content": "one"},
            {"role": "assistant", "content": [{"type": "text", "text": "a1"}]},
            {"role": "user", "content": [{"type": "text", "text": "two"}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "x", "name": "t", "input": {}}]},
            {"role": "assistant", "content": [{"type": "text", "text": "a2"}]},
        ],
    }
    path = tmp_path / "trace.jsonl"
    path.write_text(json.dumps(record) + "\n")
    (run,) = read_traces(path)
    assert [(t.user, t.reply, [c.tool for c in t.calls]) for t in run.turns] == [
        ("one", "a1", []),
        ("two", "a2", ["t"]),
    ]


def test_audit_log() -> None:
    run = one("audit.jsonl")
    assert names(run) == ["prepare_rename", "rename_symbol", "apply_edit"]
    calls = run.turns[0].calls
    assert calls[1].result == "renamed 3" and calls[2].arguments == {} and calls[2].is_error
    assert calls[0].duration_ms == 12.0


def test_otel_genai_counts_each_tool_call_once() -> None:
    run = one("otel_genai.json")
    assert run.run == "conv-7"
    (turn,) = run.turns
    assert turn.user == "Find a hotel in Madrid for Friday"
    assert turn.reply == "Hotel Sol has rooms for 90 EUR."
    search, weather = turn.calls
    assert (search.tool, search.arguments, search.duration_ms) == (
        "search_hotels",
        {"city": "Madrid", "date": "2026-03-13"},
        500.0,
    )
    assert search.result == [{"name": "Hotel Sol", "price": 90}]
    assert (weather.tool, weather.result, weather.duration_ms) == ("get_weather", None, None)
    assert turn.usage == Usage(input_tokens=420, output_tokens=80, total_tokens=500)
    assert (turn.http_status, turn.duration_ms) == (200, 3000.0)


def _otlp(spans: list[dict[str, Any]]) -> dict[str, Any]:
    def attrs(values: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            {"key": key, "value": {"intValue": str(v)} if isinstance(v, int) else {"stringValue": v}}
            for key, v in values.items()
        ]

    return {
        "resourceSpans": [
            {
                "scopeSpans": [
                    {"spans": [{**span, "attributes": attrs(span.get("attributes", {}))} for span in spans]}
                ]
            }
        ]
    }


def test_otel_conversation_turns_and_older_attributes(tmp_path: Path) -> None:
    def trace(trace_id: str, start: int, question: str, answer: str, tool: str) -> list[dict[str, Any]]:
        return [
            {
                "traceId": trace_id,
                "spanId": "root",
                "name": "chat",
                "startTimeUnixNano": str(start),
                "endTimeUnixNano": str(start + 10**9),
                "attributes": {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.conversation.id": "c-1",
                    "gen_ai.prompt.0.role": "user",
                    "gen_ai.prompt.0.content": question,
                    "gen_ai.completion.0.role": "assistant",
                    "gen_ai.completion.0.content": answer,
                    "gen_ai.completion.0.tool_calls.0.name": tool,
                    "gen_ai.completion.0.tool_calls.0.arguments": '{"q": 1}',
                    "gen_ai.usage.prompt_tokens": 7,
                    "gen_ai.usage.completion_tokens": 3,
                },
            }
        ]

    path = tmp_path / "otel.jsonl"
    later = trace("t2", 2 * 10**18, "second", "two", "lookup")
    earlier = trace("t1", 10**18, "first", "one", "search")
    path.write_text(json.dumps(_otlp(later)) + "\n" + json.dumps(_otlp(earlier)) + "\n")
    (run,) = read_traces(path)
    assert [(t.user, t.reply) for t in run.turns] == [("first", "one"), ("second", "two")]
    assert names(run) == ["search", "lookup"]
    assert [c.position for t in run.turns for c in t.all_calls()] == [0, 1]
    assert run.turns[0].calls[0].arguments == {"q": 1}
    assert run.turns[1].usage == Usage(input_tokens=7, output_tokens=3)


def test_mibo_legacy_custom_api() -> None:
    run = one("mibo_custom.json")
    (turn,) = run.turns
    assert run.platform == "custom"
    assert (turn.user, turn.reply, turn.http_status, turn.duration_ms) == (
        "Book a hotel in Madrid",
        "I booked Hotel Sol.",
        200,
        1500.0,
    )
    assert [c.arguments for c in turn.calls] == [{"city": "Madrid"}, {"hotel": "Hotel Sol", "nights": 2}]
    assert [n.name for n in turn.nodes] == ["Planner"]
    assert turn.body["usage"]["total_tokens"] == 200  # the body is what JSON and token checks read
    token_case = only_case(DATA / "mibo" / "token_limit.json", mibo.load)
    assert evaluate_case(token_case, run).status is Status.PASS


def test_mibo_legacy_response_path(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"data": {"choices": [{"message": {"content": "deep"}}], "text": "shallow"}}))
    (run,) = read_traces(path, response_path="choices.0.message.content")
    assert run.turns[0].reply == "deep"
    (plain,) = read_traces(path)
    assert plain.turns[0].reply == "shallow"


def test_mibo_n8n_flat_map() -> None:
    run = one("mibo_n8n_flat.json")
    (turn,) = run.turns
    assert run.platform == "n8n"
    assert turn.reply == "AAPL looks strong: RSI 61."  # the last AI node's output
    agent = turn.nodes[1]
    assert agent.name == "AI Agent" and [c.tool for c in agent.calls] == ["get_quote", "calculate_rsi"]
    assert agent.calls[0].arguments == {"symbol": "AAPL"}  # JSON text parsed
    scrape = only_case(DATA / "mibo" / "n8n_http_request.json", mibo.load)
    assert evaluate_case(scrape, run).outcomes[0].passed
    nested = only_case(DATA / "mibo" / "nested_tool_calls.json", mibo.load)
    assert evaluate_case(nested, run).status is Status.FAIL


def test_mibo_n8n_node_list() -> None:
    run = one("mibo_n8n_nodes.json")
    (turn,) = run.turns
    assert turn.reply == "Hi there!"
    assert [n.name for n in turn.nodes] == ["Webhook", "OpenAI", "Set"]
    assert turn.nodes[2].output == [{"a": 1}, {"a": 2}]


def test_mibo_flowise() -> None:
    run = one("mibo_flowise.json")
    (turn,) = run.turns
    assert run.platform == "flowise"
    assert (turn.user, turn.reply) == ("Weather in Lisbon?", "It is 21°C in Lisbon.")
    (weather,) = turn.calls
    assert (weather.tool, weather.arguments, weather.result) == (
        "get_weather",
        {"city": "Lisbon", "units": "celsius"},
        {"temp": 21},
    )
    assert (
        evaluate_case(only_case(DATA / "mibo" / "matcher_one_of.json", mibo.load), run).status is Status.PASS
    )


def test_forced_platform(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"data": {"text": "hi", "usedTools": [{"tool": "x", "toolInput": {}}]}}))
    assert names(read_traces(path)[0]) == ["x"]
    assert names(read_traces(path, platform="custom")[0]) == []


def test_mibo_canonical_spans() -> None:
    run = one("mibo_canonical.json")
    (turn,) = run.turns
    assert run.run == "req-9"
    assert (turn.reply, turn.http_status, turn.duration_ms) == ("Event created for tomorrow.", 200, 2000.0)
    assert turn.usage == Usage(input_tokens=50, output_tokens=20)
    assert [n.name for n in turn.nodes] == ["Webhook", "AI Agent"]
    agent = turn.nodes[1]
    assert agent.arguments == {"promptType": "auto"} and agent.output == {
        "output": "Event created for tomorrow."
    }
    date_time, event = agent.calls
    assert date_time.arguments == {} and event.arguments["user_id"] == "usr-abc-123"
    assert event.is_error and event.node == "AI Agent"
    wrapper = only_case(DATA / "mibo" / "context_wrapper_expression.json", mibo.load)
    assert evaluate_case(wrapper, run).status is Status.FAIL  # top-level node_call reads nodes when there are
    (tool_check,) = wrapper.assertions
    assert isinstance(tool_check, CallCheck)
    in_agent = CallCheck(
        name="AI Agent", level="auto", calls=(tool_check.model_copy(update={"level": "tool"}),)
    )
    assert evaluate_case(wrapper.model_copy(update={"assertions": (in_agent,)}), run).status is Status.PASS


def test_native_transcripts() -> None:
    run = one("native.json")
    assert run.scenario == "refund" and [t.user for t in run.turns] == [
        "I was charged twice",
        "Order ORD-9921",
    ]


def test_a_native_transcript_saved_with_untyped_metadata_is_read_into_typed_fields(tmp_path: Path) -> None:
    saved = {
        "turns": [{"user": "hi", "reply": ""}],
        "metadata": {
            "provider": "scripted",
            "model": "m",
            "tools": [{"name": "add_note", "description": "Adds", "input_schema": {"type": "object"}}],
            "duration_ms": 12.5,
            "target": "http://agent",
            "stop": {"reason": "max_steps", "kind": "expectation", "turn": 1, "step": 3, "message": "stuck"},
        },
    }
    path = tmp_path / "old.trace.json"
    path.write_text(json.dumps(saved))
    run = one(str(path))
    assert (run.provider, run.model, run.duration_ms) == ("scripted", "m", 12.5)
    assert run.tools is not None and [tool.name for tool in run.tools] == ["add_note"]
    assert run.stop is not None
    stop = (run.stop.reason, run.stop.kind, run.stop.turn, run.stop.step)
    assert stop == ("max_steps", "expectation", 1, 3)
    failure = run.stopped
    assert failure is not None and failure.message == "stuck"

    saved["metadata"] = {"stop": {"kind": "weird"}, "no_reply": True}
    path.write_text(json.dumps(saved))
    run = one(str(path))
    assert run.no_reply is True
    assert run.stop is not None and run.stop.kind is FailureKind.TRANSPORT
    assert run.stop.message == "the run stopped early"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the file is empty"),
        ('{"tool": "a"}\nnot json\n', "line 2, column 1: not JSON (Expecting value)"),
        ('{\n  "spans": [\n    {"span_id": "r",, }\n]}\n', "line 3, column 21: not JSON (Expecting property"),
        ('{"tool": "a",, }\n{"tool": "b"}\n', "line 1, column 14: not JSON (Expecting property"),
        ('{"hello": "world"}', "not a trace format toolproof knows (top-level keys: hello)"),
        ('{"a": 1}\n{"b": 2}\n', "neither an MCPLab trace"),
        ('{"spans": [{"name": "x"}]}', "spans[0] is not a span"),
        ('{"turns": [{"calls": [{"arguments": {}}]}]}', "run 1: turns.0.calls.0.tool: Field required"),
    ],
)
def test_broken_traces(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "trace.json"
    path.write_text(text)
    with pytest.raises(TraceError, match=re.escape(message)):
        read_traces(path)


def test_otel_messages_from_older_genai_events() -> None:
    run = one("otel_events.json")
    (turn,) = run.turns
    assert (turn.user, turn.reply) == ("Where is order ORD-9921?", "Order ORD-9921 has shipped.")
    (lookup,) = turn.all_calls()  # asked for in one choice, repeated as history in the next: counted once
    assert (lookup.tool, lookup.arguments, lookup.result, lookup.id) == (
        "lookup_order",
        {"order_id": "ORD-9921"},
        {"status": "shipped"},  # from the tool message that answers call_9
        "call_9",
    )
    assert turn.usage == Usage(input_tokens=280, output_tokens=45, total_tokens=325)


def test_otel_messages_from_the_inference_details_event() -> None:
    (turn,) = one("otel_inference_details.json").turns
    (booking,) = turn.all_calls()
    assert (turn.user, turn.reply) == ("Book a table for two", "Your table for two is booked.")
    assert (booking.tool, booking.arguments, booking.result) == ("book_table", {"party": 2}, {"booked": True})


def test_messages_in_attributes_win_over_events_and_prompt_events_count(tmp_path: Path) -> None:
    def kv(key: str, value: str) -> dict[str, Any]:
        return {"key": key, "value": {"stringValue": value}}

    span = {
        "traceId": "t",
        "spanId": "s",
        "name": "chat",
        "attributes": [kv("gen_ai.operation.name", "chat"), kv("gen_ai.response.text", "from attributes")],
        "events": [
            {
                "name": "gen_ai.content.prompt",
                "attributes": [kv("gen_ai.prompt", '[{"role": "user", "content": "hi"}]')],
            },
            {"name": "gen_ai.content.completion", "attributes": [kv("gen_ai.completion", "from events")]},
        ],
    }
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}))
    (turn,) = one(str(path)).turns
    assert (turn.user, turn.reply) == ("hi", "from attributes")
    span["attributes"] = [kv("gen_ai.operation.name", "chat")]
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}))
    assert one(str(path)).turns[0].reply == "from events"


def test_mibo_canonical_span_events(tmp_path: Path) -> None:
    body = {
        "spans": [
            {"span_id": "r", "name": "run", "attributes": {"http.response.status_code": 200}},
            {
                "span_id": "m",
                "parent_span_id": "r",
                "name": "Model",
                "events": [
                    {"name": "gen_ai.user.message", "attributes": {"content": "Plan my day"}},
                    {"name": "gen_ai.choice", "attributes": {"message": {"content": "Here is your plan."}}},
                ],
            },
        ]
    }
    path = tmp_path / "body.json"
    path.write_text(json.dumps(body))
    (turn,) = one(str(path)).turns
    assert (turn.user, turn.reply, turn.http_status) == ("Plan my day", "Here is your plan.", 200)


def test_mibo_n8n_execution_data() -> None:
    run = one("mibo_n8n_execution.json")
    (turn,) = run.turns
    assert run.platform == "n8n"
    assert [n.name for n in turn.nodes] == ["Webhook", "AI Agent", "Respond to Webhook"]  # sub-nodes are not
    agent = turn.nodes[1]
    (search,) = agent.calls
    assert (search.tool, search.arguments, search.node, search.duration_ms) == (
        "Search Hotels",
        {"city": "Madrid", "nights": 1},
        "AI Agent",
        350.0,
    )
    assert search.result == [{"name": "Hotel Sol", "price": 90}]
    assert agent.type == "@n8n/n8n-nodes-langchain.agent" and agent.status == "success"
    assert turn.nodes[0].arguments == {"path": "hotels", "httpMethod": "POST"}
    assert turn.reply == "Hotel Sol has rooms for 90 EUR."
    assert turn.usage == Usage(input_tokens=720, output_tokens=50, total_tokens=770)


def test_n8n_intermediate_steps_name_the_calls_as_the_model_did(tmp_path: Path) -> None:
    document = json.loads((TRACES / "mibo_n8n_execution.json").read_text())
    agent = document["data"]["data"]["resultData"]["runData"]["AI Agent"][0]
    steps = [{"action": {"tool": "Search_Hotels", "toolInput": {"city": "Lisbon"}}, "observation": "[]"}]
    agent["data"]["main"][0][0]["json"]["intermediateSteps"] = steps
    agent["error"] = {"message": "boom"}
    path = tmp_path / "n8n.json"
    path.write_text(json.dumps(document))
    (turn,) = one(str(path)).turns
    (call,) = turn.nodes[1].calls
    assert (call.tool, call.arguments, call.result) == ("Search_Hotels", {"city": "Lisbon"}, [])
    assert turn.nodes[1].error == "boom"


def test_canonical_spans_without_start_times_keep_their_file_order(tmp_path: Path) -> None:
    def span(span_id: str, name: str, start: str | None = None) -> dict[str, Any]:
        timed = {"start_time_unix_nano": start} if start else {}
        return {
            "span_id": span_id,
            "parent_span_id": "ag",
            "name": name,
            **timed,
            "attributes": {"gen_ai.tool.name": name},
        }

    root = {"span_id": "root", "name": "wf", "attributes": {"gen_ai.response.text": "ok"}}
    agent = {"span_id": "ag", "parent_span_id": "root", "name": "Agent"}
    path = tmp_path / "body.json"
    path.write_text(json.dumps({"spans": [root, agent, span("f3", "zeta"), span("0b", "alpha")]}))
    assert names(one(str(path))) == ["zeta", "alpha"]  # not by span id
    tied = [span("f3", "zeta", "1773133200000000000"), span("0b", "alpha", "1773133200000000000")]
    path.write_text(json.dumps({"spans": [root, agent, *tied, span("aa", "omega", "1773133100000000000")]}))
    assert names(one(str(path))) == ["omega", "zeta", "alpha"]  # equal start times: file order


def test_otel_execute_tool_without_arguments_takes_the_chat_calls(tmp_path: Path) -> None:
    asked = [
        {"type": "tool_call", "id": "a", "name": "ping", "arguments": {"x": 1}},
        {"type": "tool_call", "id": "b", "name": "ping", "arguments": {"x": 2}},
        {"type": "tool_call", "id": "c", "name": "pong", "arguments": {"y": 3}},
    ]
    chat = {
        "traceId": "t",
        "spanId": "chat",
        "parentSpanId": "root",
        "name": "chat",
        "startTimeUnixNano": "10",
        "attributes": {
            "gen_ai.operation.name": "chat",
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": asked}]),
        },
    }

    def executed(span_id: str, start: str, attributes: dict[str, Any]) -> dict[str, Any]:
        tool = {"gen_ai.operation.name": "execute_tool", **attributes}
        return {
            "traceId": "t",
            "spanId": span_id,
            "parentSpanId": "root",
            "startTimeUnixNano": start,
            "attributes": tool,
        }

    spans = [
        {"traceId": "t", "spanId": "root", "name": "invoke_agent", "startTimeUnixNano": "1"},
        chat,
        executed("e1", "20", {"gen_ai.tool.name": "ping", "gen_ai.tool.call.id": "b"}),  # matched by id
        executed("e2", "30", {"gen_ai.tool.name": "ping"}),  # the first ping left, by name
        executed("e3", "40", {"gen_ai.tool.name": "pong", "gen_ai.tool.call.arguments": '{"y": 9}'}),
    ]
    path = tmp_path / "otel.json"
    path.write_text(json.dumps(_otlp(spans)))
    (turn,) = one(str(path)).turns
    assert [(c.tool, c.arguments) for c in turn.calls] == [
        ("ping", {"x": 2}),
        ("ping", {"x": 1}),
        ("pong", {"y": 9}),  # the span's own arguments win
    ]


def test_audit_logs_record_no_reply() -> None:
    run = one("audit.jsonl")
    assert run.no_reply is True
    (outcome,) = evaluate_case(case(TextCheck(op="contains", values=("x",))), run).outcomes
    assert outcome.status is Status.SKIP


def test_skipped_n8n_nodes_did_not_run(tmp_path: Path) -> None:
    flat = {
        "data": {
            "status": "success",
            "data": {
                "Webhook": {"output": {}, "type": "n8n-nodes-base.webhook", "status": "success"},
                "IF": {"output": None, "type": "n8n-nodes-base.if", "status": "skipped"},
            },
        }
    }
    spans = {
        "spans": [
            {"span_id": "r", "name": "wf"},
            {
                "span_id": "w",
                "parent_span_id": "r",
                "name": "Webhook",
                "attributes": {"n8n.node.status": "success"},
            },
            {
                "span_id": "i",
                "parent_span_id": "r",
                "name": "IF",
                "attributes": {"n8n.node.status": "skipped"},
            },
        ]
    }
    for number, body in enumerate((flat, spans)):
        path = tmp_path / f"{number}.json"
        path.write_text(json.dumps(body))
        (outcome,) = evaluate_case(case(CallCheck(name="IF", level="auto")), one(str(path))).outcomes
        assert outcome.failure is not None
        assert outcome.failure.message == "IF did not run (nodes run: Webhook; skipped: IF)"
