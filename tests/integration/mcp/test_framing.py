"""The pure parts of the stdio transport and of failure classification."""

from __future__ import annotations

import json
import time

import pytest
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCResponse

from toolproof.mcp.errors import PROTOCOL_VIOLATION, TransportFault, classify, stderr_hint
from toolproof.mcp.mocks import root
from toolproof.mcp.stdio import LineBuffer, ProtocolViolation, parse_line, response_id
from toolproof.model.result import FailureKind


def test_line_buffer_splits_across_chunks() -> None:
    buffer = LineBuffer()
    assert buffer.feed(b'{"a"') == []
    assert buffer.feed(b":1}\n{") == [b'{"a":1}']
    assert buffer.feed(b"}\n\nx") == [b"{}", b""]
    assert buffer.pending == 1


def test_line_buffer_is_linear() -> None:
    line = b"x" * (20 << 20) + b"\n"
    buffer = LineBuffer()
    started = time.perf_counter()
    chunks = [line[start : start + (1 << 16)] for start in range(0, len(line), 1 << 16)]
    lines = [got for chunk in chunks for got in buffer.feed(chunk)]
    assert time.perf_counter() - started < 2
    assert [len(got) for got in lines] == [20 << 20]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b'{"jsonrpc":"2.0","id":7,"result":{"x":{"id":9}}', 7),
        (b'{"result":{"note":{"id":9}},"jsonrpc":"2.0","id":"abc"}', "abc"),
        (b'{"jsonrpc": "2.0", "id": -3, "error": {', -3),
        (b'{"jsonrpc":"2.0","method":"notifications/x","params":{"id":3}}', None),
        (b"Starting server...", None),
    ],
)
def test_response_id(raw: bytes, expected: object) -> None:
    assert response_id(raw) == expected


def test_parse_line_reads_a_message() -> None:
    (item,) = parse_line(b'{"jsonrpc":"2.0","id":1,"result":{}}')
    assert isinstance(item, SessionMessage) and isinstance(item.message, JSONRPCResponse)


def test_parse_line_fails_an_unreadable_response_for_its_id() -> None:
    violation, failure = parse_line(b'{"jsonrpc":"2.0","id":4,"result":{"a":' + b"[" * 5000 + b"}")
    assert isinstance(violation, ProtocolViolation)
    assert isinstance(failure, SessionMessage) and isinstance(failure.message, JSONRPCError)
    assert failure.message.id == 4
    assert PROTOCOL_VIOLATION in failure.message.error.data


def test_parse_line_reports_garbage_without_failing_anything() -> None:
    (violation,) = parse_line(b"DEBUG: ready")
    assert str(violation) == "stdout line is Invalid JSON: expected value at line 1 column 1: DEBUG: ready"


def test_classify_tells_sdk_timeouts_from_server_errors() -> None:
    sdk = classify(MCPError(-32001, "Request 'tools/call' timed out"), during="tools/call t", timeout=2)
    assert (sdk.kind, sdk.message) == (FailureKind.TIMEOUT, "tools/call t: no answer within 2s")
    server = classify(MCPError(-32001, "upstream timed out", {"after": 5}), during="tools/call t")
    assert server.kind is FailureKind.RPC_ERROR
    assert server.details == {
        "during": "tools/call t", "code": -32001, "message": "upstream timed out", "data": {"after": 5}
    }


def test_classify_explains_a_closed_connection_with_the_fault_and_stderr() -> None:
    closed = MCPError(-32000, "Connection closed")
    bare = classify(closed, during="initialize")
    assert (bare.kind, bare.message) == (FailureKind.TRANSPORT, "initialize: the connection closed")
    fault = TransportFault(FailureKind.TRANSPORT, "the server exited with code 1")
    stderr = "a\n\nb\nc\nd\n"
    explained = classify(ExceptionGroup("g", [closed]), during="initialize", fault=fault, stderr=stderr)
    assert explained.message == "initialize: the server exited with code 1 (stderr: b | c | d)"


def test_classify_treats_http_stand_ins_as_transport_only_after_an_http_error() -> None:
    stand_in = MCPError(-32603, "Server returned an error response")
    assert classify(stand_in, during="initialize").kind is FailureKind.RPC_ERROR
    fault = TransportFault(FailureKind.TRANSPORT, "HTTP 401 Unauthorized from POST http://x/mcp")
    failure = classify(stand_in, during="initialize", fault=fault)
    assert failure.kind is FailureKind.TRANSPORT
    assert failure.message == "initialize: HTTP 401 Unauthorized from POST http://x/mcp"


def test_classify_treats_a_reply_the_sdk_could_not_read_as_a_protocol_failure() -> None:
    sdk_words = "Failed to parse SSE message: 1 validation error for union\n  Invalid JSON: x"
    stand_in = MCPError(-32700, sdk_words)
    bare = classify(stand_in, during="tools/call t")
    assert (bare.kind, bare.message) == (
        FailureKind.PROTOCOL,
        "tools/call t: the server's reply is not JSON-RPC "
        "(Failed to parse SSE message: 1 validation error for union Invalid JSON: x)",
    )
    fault = TransportFault(FailureKind.PROTOCOL, "the reply to POST http://x/mcp is not JSON-RPC (y): z")
    assert classify(stand_in, during="initialize", fault=fault).message == f"initialize: {fault.message}"
    sent = MCPError(-32700, "Failed to parse JSON response: yours", {"line": 1})  # the server's own error
    assert classify(sent, during="initialize", fault=fault).kind is FailureKind.RPC_ERROR


def test_stderr_hint_is_short() -> None:
    assert stderr_hint("") == ""
    assert len(stderr_hint(json.dumps(["x" * 1000]))) == 303


def test_roots_from_paths_and_uris() -> None:
    assert root("/srv/project/").model_dump(mode="json")["uri"] == "file:///srv/project"
    assert root("/srv/project/").name == "project"
    assert root("file:///data/set").name == "set"
