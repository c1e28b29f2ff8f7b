"""Cassettes: record every model, MCP and HTTP-agent exchange of a run; replay it with no network, no server.

```python
cassette = Cassette.recording(cassette_file(directory, case))       # or Cassette.replaying(...)
provider = RecordingProvider(live_provider, cassette)              # or ReplayProvider(cassette)
tools = RecordingToolHost(live_host, cassette, server_key="notes") # or ReplayToolHost(cassette, "notes")
run_http_target(case, target, through=lambda live: RecordingSender(live, cassette))  # or ReplaySender
```

One JSON file per case holds the exchanges in the order they happened (`model`, `tools` = a tools/list,
`call` = a tools/call, `http` = a request to an HTTP agent), each with its request and its answer, so a
cassette reads like the run and diffs line by line. Replay finds an answer by the request's key (see
`cassette_codec`) and serves repeated requests in their recorded order; a request that was not recorded (or
not that many times) raises `CassetteMiss` naming the file and the request, and nothing is ever sent live.
A miss is not a ProviderError: it ends the run instead of becoming a failed model call. Secrets (values of
environment variables named like keys, tokens, secrets or passwords, plus any the caller adds) are masked
before anything is written, and every write replaces the file atomically.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from toolproof.core.sanitize import mask, secret_values
from toolproof.core.writing import write_atomic
from toolproof.model.scenario import AgentCase
from toolproof.providers.base import ModelReply, ModelRequest, Provider, ToolSpec
from toolproof.sources.agent.cassette_codec import (
    FORMAT_VERSION,
    RecordError,
    answer_from,
    answer_record,
    call_record,
    describe_call,
    describe_http,
    describe_request,
    http_record,
    key_of,
    outcome_from,
    outcome_record,
    reply_from,
    reply_record,
    request_record,
    specs_from,
    specs_record,
)
from toolproof.sources.agent.host import ToolHost, ToolOutcome
from toolproof.sources.http_target import HttpAnswer, HttpRequest, Send

DEFAULT_SERVER = "tools"
KINDS = ("model", "tools", "call", "http")
T = TypeVar("T")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class CassetteError(Exception):
    """A cassette that cannot be read or written; the message names the file."""


class CassetteMiss(CassetteError):
    """Replay was asked what the cassette does not hold: a model request, a tool call, an HTTP request."""


def cassette_file(directory: Path, case: AgentCase) -> Path:
    """Where the cassette of `case` lives in `directory`: readable, and distinct for every case node id."""
    digest = hashlib.sha256(case.node_id.encode()).hexdigest()[:8]
    stem = _UNSAFE.sub("-", case.source.file.stem).strip("-") or "case"
    name = _UNSAFE.sub("-", case.name).strip("-")[:60] or "case"
    return directory / f"{stem}--{name}--{digest}.json"


class Cassette:
    """The exchanges of one run, bound to one file."""

    def __init__(self, path: Path, exchanges: list[dict[str, Any]], secrets: Iterable[str]) -> None:
        self.path = path
        self.exchanges = exchanges
        self.secrets = tuple(sorted(set(secrets)))
        self._index: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
        for entry in exchanges:
            self._index.setdefault(_slot(entry), []).append(entry)
        self._served: Counter[tuple[str, str, str]] = Counter()

    @classmethod
    def recording(
        cls, path: Path, secrets: Iterable[str] = (), environ: Mapping[str, str] | None = None
    ) -> Cassette:
        """An empty cassette that replaces `path` on its first exchange.

        Masked: `secrets`, and the values of variables of `environ` (default: this process's environment)
        whose names look like keys, tokens or passwords.
        """
        return cls(path, [], _all_secrets(secrets, environ))

    @classmethod
    def replaying(
        cls, path: Path, secrets: Iterable[str] = (), environ: Mapping[str, str] | None = None
    ) -> Cassette:
        """The cassette recorded at `path`; raises CassetteError if it is missing or malformed."""
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise CassetteError(f"{path}: no cassette recorded here (record the run first)") from None
        except OSError as error:
            raise CassetteError(f"{path}: cannot read the cassette ({error.strerror})") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise CassetteError(f"{path}:{error.lineno}:{error.colno}: not JSON ({error.msg})") from None
        return cls(path, _exchanges(path, data), _all_secrets(secrets, environ))

    # --- recording

    def record_model(self, request: ModelRequest, reply: ModelReply) -> None:
        asked = mask(request_record(request), self.secrets)
        self._add({"kind": "model", "key": key_of(asked), "request": asked, "reply": reply_record(reply)})

    def record_tools(self, server: str, specs: Iterable[ToolSpec]) -> None:
        self._add({"kind": "tools", "server": server, "tools": specs_record(specs)})

    def record_call(self, server: str, name: str, arguments: dict[str, Any], outcome: ToolOutcome) -> None:
        asked = mask(call_record(name, arguments), self.secrets)
        entry = {"kind": "call", "server": server, "key": key_of(asked), **asked}
        self._add({**entry, "outcome": outcome_record(outcome)})

    def record_http(self, request: HttpRequest, answer: HttpAnswer) -> None:
        asked = mask(http_record(request), self.secrets)
        self._add({"kind": "http", "key": key_of(asked), "request": asked, "response": answer_record(answer)})

    def _add(self, entry: dict[str, Any]) -> None:
        masked = mask(entry, self.secrets)
        self.exchanges.append(masked)
        self._index.setdefault(_slot(masked), []).append(masked)
        self.save()

    def save(self) -> None:
        """Write the cassette: to a temporary file beside it, then renamed over it."""
        document = {"toolproof_cassette": FORMAT_VERSION, "exchanges": self.exchanges}
        try:
            write_atomic(self.path, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        except OSError as error:
            raise CassetteError(f"{self.path}: cannot write the cassette ({error.strerror})") from None

    # --- replaying

    def replay_model(self, request: ModelRequest) -> ModelReply:
        asked = mask(request_record(request), self.secrets)
        key = key_of(asked)
        entry = self._next(("model", "", key))
        if entry is None:
            raise CassetteMiss(
                f"{self.path}: no recorded model reply for this request{self._again(('model', '', key))} "
                f"(key {key}; last message {describe_request(asked)}); record the run again"
            )
        return self._decoded(reply_from, entry.get("reply"), entry)

    def replay_tools(self, server: str) -> tuple[ToolSpec, ...]:
        lists = self._index.get(("tools", server, ""), [])
        if not lists:
            message = f"{self.path}: no recorded tool list for server {server!r}; record the run again"
            raise CassetteMiss(message)
        # The catalog does not change within a run: a later listing is answered with the last one recorded.
        served = self._served[("tools", server, "")]
        self._served[("tools", server, "")] += 1
        entry = lists[min(served, len(lists) - 1)]
        return self._decoded(specs_from, entry.get("tools"), entry)

    def replay_call(self, server: str, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        asked = mask(call_record(name, arguments), self.secrets)
        slot = ("call", server, key_of(asked))
        entry = self._next(slot)
        if entry is None:
            raise CassetteMiss(
                f"{self.path}: no recorded result for tool call {describe_call(asked)} on server "
                f"{server!r}{self._again(slot)} (key {slot[2]}); record the run again"
            )
        return self._decoded(outcome_from, entry.get("outcome"), entry)

    def replay_http(self, request: HttpRequest) -> HttpAnswer:
        asked = mask(http_record(request), self.secrets)
        slot = ("http", "", key_of(asked))
        entry = self._next(slot)
        if entry is None:
            described = describe_http(request.turn, mask(request.user, self.secrets), asked)
            raise CassetteMiss(
                f"{self.path}: no recorded answer for the HTTP request of {described}{self._again(slot)} "
                f"(key {slot[2]}); record the run again"
            )
        return self._decoded(answer_from, entry.get("response"), entry)

    def _next(self, slot: tuple[str, str, str]) -> dict[str, Any] | None:
        entries = self._index.get(slot, [])
        served = self._served[slot]
        if served >= len(entries):
            return None
        self._served[slot] += 1
        return entries[served]

    def _again(self, slot: tuple[str, str, str]) -> str:
        recorded = len(self._index.get(slot, []))
        return f" (recorded {recorded} time{'s' if recorded != 1 else ''}, asked again)" if recorded else ""

    def _decoded(self, decode: Callable[[Any], T], record: Any, entry: dict[str, Any]) -> T:
        try:
            return decode(record)
        except RecordError as error:
            number = self.exchanges.index(entry)
            raise CassetteError(f"{self.path}: exchanges[{number}].{error}") from None


def _all_secrets(secrets: Iterable[str], environ: Mapping[str, str] | None) -> set[str]:
    found = secret_values(dict(os.environ) if environ is None else environ, {})
    return found | {secret for secret in secrets if secret}


def _slot(entry: dict[str, Any]) -> tuple[str, str, str]:
    kind = str(entry.get("kind", ""))
    server = "" if kind in ("model", "http") else str(entry.get("server", DEFAULT_SERVER))
    return kind, server, str(entry.get("key", ""))


def _exchanges(path: Path, data: Any) -> list[dict[str, Any]]:
    if not isinstance(data, dict) or data.get("toolproof_cassette") != FORMAT_VERSION:
        raise CassetteError(f"{path}: not a toolproof cassette (version {FORMAT_VERSION})")
    exchanges = data.get("exchanges")
    if not isinstance(exchanges, list):
        raise CassetteError(f"{path}: exchanges: must be a list")
    for number, entry in enumerate(exchanges):
        if not isinstance(entry, dict) or entry.get("kind") not in KINDS:
            message = f"{path}: exchanges[{number}]: must be a mapping with kind model, tools, call or http"
            raise CassetteError(message)
    return exchanges


# --- the provider and tool host wrappers -------------------------------------------------------------------


class RecordingProvider:
    """Answers through `inner` and records every request with its reply."""

    def __init__(self, inner: Provider, cassette: Cassette) -> None:
        self.inner = inner
        self.cassette = cassette
        self.name = inner.name

    async def complete(self, request: ModelRequest) -> ModelReply:
        reply = await self.inner.complete(request)
        self.cassette.record_model(request, reply)
        return reply


class ReplayProvider:
    """Answers from a cassette only; a request it does not hold raises CassetteMiss."""

    name = "replay"

    def __init__(self, cassette: Cassette) -> None:
        self.cassette = cassette

    async def complete(self, request: ModelRequest) -> ModelReply:
        return self.cassette.replay_model(request)


class RecordingToolHost:
    """Lists and calls tools through `inner`, recording each exchange under `server_key`."""

    def __init__(self, inner: ToolHost, cassette: Cassette, server_key: str = DEFAULT_SERVER) -> None:
        self.inner = inner
        self.cassette = cassette
        self.server_key = server_key

    async def list_tools(self) -> tuple[ToolSpec, ...]:
        specs = await self.inner.list_tools()
        self.cassette.record_tools(self.server_key, specs)
        return specs

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        outcome = await self.inner.call(name, arguments)
        self.cassette.record_call(self.server_key, name, arguments, outcome)
        return outcome


class ReplayToolHost:
    """Lists and calls tools from a cassette only; a call it does not hold raises CassetteMiss."""

    def __init__(self, cassette: Cassette, server_key: str = DEFAULT_SERVER) -> None:
        self.cassette = cassette
        self.server_key = server_key

    async def list_tools(self) -> tuple[ToolSpec, ...]:
        return self.cassette.replay_tools(self.server_key)

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        return self.cassette.replay_call(self.server_key, name, arguments)


class RecordingSender:
    """Sends an HTTP agent's requests through `inner` and records each with its answer."""

    def __init__(self, inner: Send, cassette: Cassette) -> None:
        self.inner = inner
        self.cassette = cassette

    async def __call__(self, request: HttpRequest) -> HttpAnswer:
        answer = await self.inner(request)
        self.cassette.record_http(request, answer)
        return answer


class ReplaySender:
    """Answers an HTTP agent's requests from a cassette only; one it does not hold raises CassetteMiss."""

    def __init__(self, cassette: Cassette) -> None:
        self.cassette = cassette

    async def __call__(self, request: HttpRequest) -> HttpAnswer:
        return self.cassette.replay_http(request)
