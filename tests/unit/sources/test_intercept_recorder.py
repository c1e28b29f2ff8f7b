"""The JSON-RPC line recorder of `toolproof intercept`: what it records from the bytes passing each way."""

from __future__ import annotations

import json
from typing import Any

from toolproof.core.framing import LineBuffer
from toolproof.model.transcript import ToolCall
from toolproof.sources.intercept.recorder import CallRecorder, audit_log
from toolproof.sources.traces.audit_log import parse_audit_log


def line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def call(request_id: Any, tool: str, args: Any = None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": tool}
    if args is not None:
        params["arguments"] = args
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def answer(request_id: Any, text: str = "ok", *, is_error: bool = False) -> dict[str, Any]:
    result = {"content": [{"type": "text", "text": text}], "isError": is_error}
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_lines_split_across_chunks_and_keep_empty_and_partial_lines() -> None:
    lines = LineBuffer()
    assert lines.feed(b'{"a"') == []
    assert lines.feed(b":1}\n\nx") == [b'{"a":1}', b""]
    assert lines.feed(b"yz\r\nlast") == [b"xyz\r"]
    assert lines.rest() == b"last"
    assert lines.rest() == b""


def test_lines_over_the_limit_are_dropped_whole_and_the_next_line_is_kept() -> None:
    lines = LineBuffer(limit=8)
    assert lines.feed(b"0123456789") == []  # too long already: dropped
    assert lines.feed(b"abc\nshort\n") == [b"short"]
    assert lines.feed(b"0123456789\nok\n") == [b"ok"]
    lines.feed(b"0123456789")
    assert lines.rest() == b""


def test_tool_calls_are_recorded_with_arguments_and_completed_by_their_answers() -> None:
    clock = Clock()
    recorder = CallRecorder(clock=clock)
    recorder.from_agent(line(call(1, "search", {"query": "milk"})) + line(call("b", "read", {"id": 2})))
    clock.now += 0.25
    recorder.from_server(line(answer("b", "body", is_error=True)))
    recorder.from_server(line(answer(1, "found")))
    search, read = recorder.calls
    assert (search.tool, search.args, search.answered, search.is_error, search.result) == (
        "search", {"query": "milk"}, True, False, "found"
    )
    assert (read.tool, read.is_error, read.result, read.duration_ms) == ("read", True, "body", 250.0)
    assert [(call.tool, call.arguments, call.position) for call in recorder.trace] == [
        ("search", {"query": "milk"}, 0),
        ("read", {"id": 2}, 1),
    ]


def test_a_json_rpc_error_marks_the_call_failed_with_its_code_and_message() -> None:
    recorder = CallRecorder()
    recorder.from_agent(line(call(7, "export", {"format": "xml"})))
    error = {"code": -32602, "message": "bad format"}
    recorder.from_server(line({"jsonrpc": "2.0", "id": 7, "error": error}))
    (export,) = recorder.calls
    assert export.answered and export.is_error
    assert export.error == "-32602: bad format"


def test_ids_are_matched_exactly_and_only_from_the_server_side() -> None:
    recorder = CallRecorder()
    recorder.from_agent(line(call(1, "one")))
    recorder.from_agent(line(answer(1)))  # the agent answering a server request: not the call's answer
    recorder.from_server(line(answer("1")))  # a string id is another id
    recorder.from_server(line({"jsonrpc": "2.0", "id": 1, "method": "sampling/createMessage", "params": {}}))
    assert not recorder.calls[0].answered
    recorder.from_server(line(answer(1)))
    assert recorder.calls[0].answered


def test_garbage_partial_lines_and_other_messages_are_passed_over() -> None:
    recorder = CallRecorder()
    request = line(call(3, "split", {"text": "tools/call"}))
    recorder.from_agent(b"not json {{{ tools\n\xff\xfe tools\n" + b"[" * 100_000 + b" tools\n")
    recorder.from_agent(line({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
    nameless = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"arguments": {}}}
    recorder.from_agent(line(nameless))
    recorder.from_agent(b"42 tools\n" + request[:10])
    recorder.from_agent(request[10:])
    assert [c.tool for c in recorder.calls] == ["split"]
    recorder.from_server(b"Starting server...\n" + line(answer(3))[:-1])
    assert not recorder.calls[0].answered  # its line has not ended yet
    recorder.close()
    assert recorder.calls[0].answered


def test_batches_are_read_message_by_message_and_non_object_arguments_count_as_none() -> None:
    recorder = CallRecorder()
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    batch = [call(1, "a", {"x": 1}), initialized, call(2, "b", [1])]
    recorder.from_agent(json.dumps(batch).encode() + b"\n")
    recorder.from_server(json.dumps([answer(2), answer(1)]).encode() + b"\n")
    assert [(c.tool, c.args, c.answered) for c in recorder.calls] == [("a", {"x": 1}, True), ("b", {}, True)]


def test_a_call_without_an_id_is_recorded_but_never_answered() -> None:
    recorder = CallRecorder()
    recorder.from_agent(line({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "x"}}))
    recorder.from_server(line({"jsonrpc": "2.0", "id": None, "result": {}}))
    assert [(c.tool, c.answered) for c in recorder.calls] == [("x", False)]


def test_the_audit_log_reads_back_as_the_same_trace() -> None:
    recorder = CallRecorder()
    recorder.from_agent(line(call(1, "search", {"query": "ü", "limit": 2})) + line(call(2, "never", {})))
    recorder.from_server(line(answer(1, "found", is_error=True)))
    text = audit_log(recorder.calls)
    records = [json.loads(raw) for raw in text.splitlines()]
    assert (records[0]["tool"], records[0]["is_error"], records[0]["result"]) == ("search", True, "found")
    assert records[1] == {"tool": "never", "args": {}}
    def seen(calls: list[ToolCall]) -> list[tuple[str, Any, bool, Any, int]]:
        return [(each.tool, each.arguments, each.is_error, each.result, each.position) for each in calls]

    assert seen(parse_audit_log(text)) == seen(recorder.trace)
