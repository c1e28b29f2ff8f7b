"""The plain-JSON form of the exchanges a cassette holds, and their lookup keys. Pure.

A model request is keyed by its canonical content (model, system, messages, tools, max_tokens, temperature;
never the scenario or turn it was made for), a tool call by its name and arguments, a request to an HTTP
agent by its method, URL and body with the run's request and session ids written `{request_id}` and
`{session_id}` (they are fresh in every run; the headers, credential included, are never recorded). Keys are
computed after masking, so a request that carried a secret when it was recorded and carries `***` when
replayed (because the replayed answers before it were masked) still finds its entry.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any, TypeVar

from pydantic import TypeAdapter, ValidationError

from toolproof.providers.base import ModelReply, ModelRequest, ToolSpec
from toolproof.sources.agent.host import ToolOutcome
from toolproof.sources.http_target import HttpAnswer, HttpRequest

FORMAT_VERSION = 1
KEY_LENGTH = 16
_CONTEXT_ONLY = ("scenario", "turn")  # where a request was made; not part of what was asked

_REQUEST = TypeAdapter(ModelRequest)
_REPLY = TypeAdapter(ModelReply)
_SPECS = TypeAdapter(tuple[ToolSpec, ...])
_OUTCOME = TypeAdapter(ToolOutcome)
_ANSWER = TypeAdapter(HttpAnswer)
T = TypeVar("T")


class RecordError(ValueError):
    """A cassette entry that does not decode; the message names the field."""


def key_of(record: Any) -> str:
    """A short stable hash of a JSON-like value (keys sorted, no whitespace)."""
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:KEY_LENGTH]


def request_record(request: ModelRequest) -> dict[str, Any]:
    """What was asked of the model, as JSON."""
    record: dict[str, Any] = _REQUEST.dump_python(request, mode="json")
    for name in _CONTEXT_ONLY:
        record.pop(name, None)
    return record


def call_record(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A tool call as JSON."""
    return {"name": name, "arguments": json.loads(json.dumps(arguments, default=str))}


def http_record(request: HttpRequest) -> dict[str, Any]:
    """What was sent to an HTTP agent, as JSON, with the run's ids replaced by their placeholders."""
    ids = {request.request_id: "{request_id}", request.session_id: "{session_id}"}
    body = json.loads(json.dumps(request.body, default=str))
    return {"method": request.method, "url": request.url, "body": _without_ids(body, ids)}


def _without_ids(value: Any, ids: dict[str, str]) -> Any:
    """`value` with every occurrence of an id (a key of `ids`) in its strings replaced by its placeholder."""
    if isinstance(value, str):
        for found, placeholder in ids.items():
            value = value.replace(found, placeholder) if found else value
        return value
    if isinstance(value, dict):
        return {key: _without_ids(item, ids) for key, item in value.items()}
    if isinstance(value, list):
        return [_without_ids(item, ids) for item in value]
    return value


def reply_record(reply: ModelReply) -> dict[str, Any]:
    return dict(_REPLY.dump_python(reply, mode="json"))


def specs_record(specs: Iterable[ToolSpec]) -> list[Any]:
    return list(_SPECS.dump_python(tuple(specs), mode="json"))


def outcome_record(outcome: ToolOutcome) -> dict[str, Any]:
    return dict(_OUTCOME.dump_python(outcome, mode="json"))


def answer_record(answer: HttpAnswer) -> dict[str, Any]:
    return dict(_ANSWER.dump_python(answer, mode="json"))


def reply_from(record: Any) -> ModelReply:
    return _decode(_REPLY, record, "reply")


def specs_from(record: Any) -> tuple[ToolSpec, ...]:
    return _decode(_SPECS, record, "tools")


def outcome_from(record: Any) -> ToolOutcome:
    return _decode(_OUTCOME, record, "outcome")


def answer_from(record: Any) -> HttpAnswer:
    return _decode(_ANSWER, record, "response")


def _decode(adapter: TypeAdapter[T], record: Any, field: str) -> T:
    try:
        return adapter.validate_python(record)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in (field, *first["loc"]))
        raise RecordError(f"{where}: {first['msg']}") from None


def describe_request(record: dict[str, Any]) -> str:
    """The last message of a model request record, shortened, for a replay-miss message."""
    messages = record.get("messages") or []
    if not messages:
        return "no messages"
    last = messages[-1]
    role = last.get("role", "?")
    if last.get("tool_uses"):
        names = ", ".join(str(use.get("name")) for use in last["tool_uses"])
        return f"{role}: tool uses {names}"
    text = str(last.get("text", ""))
    return f"{role}: {_short(text)}"


def describe_call(record: dict[str, Any]) -> str:
    """A tool call record as `name {arguments}`, shortened."""
    arguments = json.dumps(record.get("arguments"), sort_keys=True, ensure_ascii=False)
    return f"{record.get('name')} {_short(arguments)}"


def describe_http(turn: int, user: str, record: dict[str, Any]) -> str:
    """An HTTP request record as `turn N (METHOD URL, user message '...')`, shortened."""
    return f"turn {turn} ({record.get('method')} {record.get('url')}, user message {_short(user)})"


def _short(text: str, limit: int = 200) -> str:
    text = text.replace("\n", " ")
    return repr(text if len(text) <= limit else text[:limit] + "...")
