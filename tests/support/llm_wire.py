"""A local model server speaking the OpenAI Chat Completions and Anthropic Messages wire formats.

The real provider adapters (and anything built on them, such as the agent loop) are tested against it
instead of a real API: no key, no network beyond 127.0.0.1.

    from tests.support.llm_wire import LlmWire, llm_wire  # noqa: F401  (in a conftest.py: the fixture)

    async def test_something(llm_wire: LlmWire) -> None:
        llm_wire.reply(calls=[WireCall("add", {"a": 1, "b": 2})])   # first request: a tool call
        llm_wire.reply("The sum is 3.", usage=(120, 8))              # second request: the final answer
        llm_wire.fail(429, times=2, retry_after="0")                 # (queued after the two above)
        provider = OpenAIChatProvider(api_key="test-key", base_url=llm_wire.openai_base_url)
        ...
        assert llm_wire.bodies()[1]["messages"][-1]["role"] == "tool"

One queue of answers serves both formats, first in, first out: each request to `POST /v1/chat/completions`
or `POST /v1/messages` takes the next answer and gets it rendered in that endpoint's format. A request with
nothing queued gets HTTP 400 ("no reply queued"), which providers do not retry. Every request is recorded
(path, lower-cased headers, JSON body) in `requests`; `max_in_flight` is the largest number of requests the
server was answering at once (a reply's `delay` holds it open, to test concurrency bounds).
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

import pytest

OPENAI_PATH = "/v1/chat/completions"
ANTHROPIC_PATH = "/v1/messages"
_ERROR_TYPES = {
    OPENAI_PATH: {429: "rate_limit_exceeded", 500: "server_error"},
    ANTHROPIC_PATH: {429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"},
}


@dataclass(frozen=True)
class WireCall:
    """A tool call in a reply; `arguments` given as a string are sent verbatim (to test malformed JSON)."""

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True)
class WireAnswer:
    """One queued answer: a reply (text and/or tool calls, with usage) or, when `status` is not 200, an
    error with `message` and an optional `Retry-After` header."""

    text: str = ""
    calls: tuple[WireCall, ...] = ()
    usage: tuple[int, int] = (10, 5)
    status: int = 200
    message: str = ""
    retry_after: str | None = None
    delay: float = 0.0


@dataclass(frozen=True)
class Recorded:
    """One request the server got."""

    path: str
    headers: dict[str, str]
    body: Any


class LlmWire:
    """The server; a context manager that starts it on a free port of 127.0.0.1 and stops it."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.max_in_flight = 0
        self._answers: deque[WireAnswer] = deque()
        self._lock = threading.Lock()
        self._in_flight = 0
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.wire = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="llm-wire", daemon=True
        )

    # --- lifecycle -----------------------------------------------------------------------------------------

    def __enter__(self) -> LlmWire:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def openai_base_url(self) -> str:
        """What the OpenAI SDK takes as `base_url`."""
        return f"{self.url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        """What the Anthropic SDK takes as `base_url`."""
        return self.url

    # --- scripting -----------------------------------------------------------------------------------------

    def reply(
        self, text: str = "", *, calls: Sequence[WireCall] = (), usage: tuple[int, int] = (10, 5),
        delay: float = 0.0,
    ) -> None:
        """Queue a reply: `text`, tool `calls`, `usage` as (input, output) tokens, held `delay` seconds."""
        self._queue(WireAnswer(text=text, calls=tuple(calls), usage=usage, delay=delay))

    def fail(
        self, status: int, *, times: int = 1, message: str = "try again later", retry_after: str | None = None
    ) -> None:
        """Queue `times` error answers with `status`, `message` and an optional `Retry-After` value."""
        for _ in range(times):
            self._queue(WireAnswer(status=status, message=message, retry_after=retry_after))

    def _queue(self, answer: WireAnswer) -> None:
        with self._lock:
            self._answers.append(answer)

    @property
    def pending(self) -> int:
        """Answers still queued."""
        with self._lock:
            return len(self._answers)

    def bodies(self, path: str | None = None) -> list[Any]:
        """The JSON bodies received (only those sent to `path`, if given), in order."""
        return [item.body for item in self.requests if path is None or item.path == path]

    # --- serving (called from the server's threads) ---------------------------------------------------------

    def _take(self, recorded: Recorded) -> WireAnswer | None:
        with self._lock:
            self.requests.append(recorded)
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
            known = recorded.path in (OPENAI_PATH, ANTHROPIC_PATH)
            return self._answers.popleft() if known and self._answers else None

    def _done(self) -> None:
        with self._lock:
            self._in_flight -= 1


class _Handler(BaseHTTPRequestHandler):
    server: Any
    answering = False

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    def do_POST(self) -> None:
        wire: LlmWire = self.server.wire
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        try:
            body = json.loads(raw or b"null")
        except json.JSONDecodeError:
            body = raw.decode("utf-8", "replace")
        headers = {key.lower(): value for key, value in self.headers.items()}
        answer = wire._take(Recorded(self.path, headers, body))
        self.answering = True
        try:
            if self.path not in (OPENAI_PATH, ANTHROPIC_PATH):
                self._send(404, _error(self.path, 404, f"no such endpoint {self.path}"))
                return
            if answer is None:
                self._send(400, _error(self.path, 400, "llm wire server: no reply queued for this request"))
                return
            time.sleep(answer.delay)
            if answer.status != 200:
                extra = {"retry-after": answer.retry_after} if answer.retry_after is not None else {}
                self._send(answer.status, _error(self.path, answer.status, answer.message), extra)
                return
            model = body.get("model", "") if isinstance(body, dict) else ""
            rendered = _openai(answer, model) if self.path == OPENAI_PATH else _anthropic(answer, model)
            self._send(200, rendered)
        finally:
            self._answered()

    def _answered(self) -> None:
        """The request stops counting as in flight once (before its reply goes out: the client may send its
        next request as soon as it has read the reply, before this thread runs on)."""
        if self.answering:
            self.answering = False
            self.server.wire._done()

    def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self._answered()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)


def _error(path: str, status: int, message: str) -> dict[str, Any]:
    kind = _ERROR_TYPES.get(path, {}).get(status, "invalid_request_error")
    if path == ANTHROPIC_PATH:
        return {"type": "error", "error": {"type": kind, "message": message}}
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def _call_id(call: WireCall, index: int) -> str:
    return call.id or f"call_{index}"


def _openai_call(call: WireCall, index: int) -> dict[str, Any]:
    arguments = call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)
    function = {"name": call.name, "arguments": arguments}
    return {"id": _call_id(call, index), "type": "function", "function": function}


def _openai(answer: WireAnswer, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": answer.text or None}
    if answer.calls:
        message["tool_calls"] = [_openai_call(call, index) for index, call in enumerate(answer.calls)]
    prompt, completion = answer.usage
    return {
        "id": "chatcmpl-wire",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if answer.calls else "stop",
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


def _anthropic(answer: WireAnswer, model: str) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": answer.text}] if answer.text else []
    content.extend(
        {"type": "tool_use", "id": _call_id(call, index), "name": call.name, "input": call.arguments}
        for index, call in enumerate(answer.calls)
    )
    prompt, completion = answer.usage
    return {
        "id": "msg_wire",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use" if answer.calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": prompt, "output_tokens": completion},
    }


@pytest.fixture
def llm_wire() -> Iterator[LlmWire]:
    """A running LlmWire server, stopped after the test."""
    with LlmWire() as wire:
        yield wire
