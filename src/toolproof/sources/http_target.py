"""Test an existing agent over HTTP (Mibo-style active testing): send each user turn, observe what came back.

Entry point for the `eval` command:

```python
run = await run_http_target(case, target)    # case: AgentCase, target: model.target.HttpTarget
run.turns                                    # one Turn per user turn sent
run.stop                                     # None, or why the conversation stopped (a FailureKind)
run = await run_http_target(case, target, through=lambda live: RecordingSender(live, cassette))  # cassette.py
```

Each turn is one request: the target's body template (or the case's `custom_body`, sent as written) filled
with the turn's message, the case's context, a fresh request id (also sent in `x-request-id`) and one session
id shared by the turns of the case. Each Turn holds the HTTP status, the measured duration, the decoded
response body (and the token usage read from it), the reply text, and the tool calls and nodes of
an inline trace. Nothing raises for a failing agent: a connection that fails is a `transport` failure, no
answer within `timeout_s` a `timeout` failure, a missing credential or unknown placeholder a `config`
failure, and an error status (not 2xx) a `transport` failure unless the case checks the status of that turn;
the conversation stops at the first failure, which the transcript records as its `stop`. `target_secrets`
gives the values reports must mask.

A request goes out as an `HttpRequest` (what is sent, without headers) through a `Send`; the live one adds
the headers and the credential when it sends, so a `Send` that answers from a cassette needs neither.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import anyio
import httpx2

from toolproof.core.sanitize import secret_values
from toolproof.core.template import expand_env
from toolproof.model.result import FailureKind
from toolproof.model.scenario import AgentCase, StatusCheck
from toolproof.model.target import HttpTarget
from toolproof.model.transcript import RunStop, Transcript, Turn
from toolproof.sources.http_body import (
    TemplateError,
    decode_body,
    fill_template,
    read_response,
    template_variables,
)
from toolproof.sources.traces.errors import TraceError
from toolproof.sources.traces.spans import renumbered
from toolproof.sources.traces.usage import with_found_usage

BODY_EXCERPT_CHARS = 300


@dataclass(frozen=True)
class HttpRequest:
    """One turn's request as sent to the agent (`turn` counts from 1); the headers are the live sender's."""

    turn: int
    user: str
    method: str
    url: str
    body: Any
    request_id: str
    session_id: str


@dataclass(frozen=True)
class HttpAnswer:
    """The agent's answer to one request: its HTTP status, its decoded body and how long it took."""

    status: int
    body: Any
    duration_ms: float


Send = Callable[[HttpRequest], Awaitable[HttpAnswer]]


class _Stop(Exception):
    def __init__(self, kind: FailureKind, message: str) -> None:
        super().__init__(message)
        self.stop = RunStop(kind=kind, message=message)


def request_headers(target: HttpTarget, environ: Mapping[str, str]) -> dict[str, str]:
    """The target's headers with `${VAR}` expanded, plus its credential; raises _Stop when one is unset."""
    headers = {name: expand_env(value, environ) for name, value in target.headers.items()}
    if target.auth is not None:
        secret = environ.get(target.auth.env, "")
        if not secret:
            raise _Stop(FailureKind.CONFIG, f"target auth: environment variable {target.auth.env} is not set")
        scheme = target.auth.scheme
        headers[target.auth.header] = f"{scheme} {secret}" if scheme else secret
    return headers


def target_secrets(target: HttpTarget, environ: Mapping[str, str] | None = None) -> set[str]:
    """The target's credential and the values of its secret-looking headers, which reports must mask."""
    environ = os.environ if environ is None else environ
    found = secret_values({}, {name: expand_env(value, environ) for name, value in target.headers.items()})
    if target.auth is not None and environ.get(target.auth.env):
        found.add(environ[target.auth.env])
    return found


async def run_http_target(
    case: AgentCase,
    target: HttpTarget,
    *,
    environ: Mapping[str, str] | None = None,
    through: Callable[[Send], Send] | None = None,
    new_id: Callable[[], str] = lambda: str(uuid.uuid4()),
) -> Transcript:
    """Send `case`'s turns to `target`, one request each, and return what was observed (with why it stopped
    early, if it did).

    `environ` (default: this process's environment) expands `${VAR}` in headers and holds the credential;
    `through`, given the live `Send`, returns the one the requests go through (a cassette's recorder or
    its replay); `new_id` makes request and session ids.
    """
    environ = os.environ if environ is None else environ
    target = target.model_copy(update={"url": expand_env(target.url, environ)})
    session_id = new_id()
    started_ms = time.time() * 1000
    users = [turn.user for turn in case.turns] or ([""] if case.custom_body is not None else [])
    turns: list[Turn] = []
    request_ids: list[str] = []
    stopped: RunStop | None = None
    try:
        if not users:
            raise _Stop(FailureKind.CONFIG, "the case has no user turn and no custom_body to send")
        async with httpx2.AsyncClient(timeout=target.timeout_s) as client:
            live = _live_send(client, target, environ)
            send = live if through is None else through(live)
            for index, user in enumerate(users):
                request_ids.append(new_id())
                ids = (request_ids[-1], session_id)
                turn = await _exchange(send, case, target, index, user, ids)
                turns.append(turn)
                status = turn.http_status or 0
                if not 200 <= status < 300 and not _status_checked(case, index):
                    excerpt = _excerpt(turn.body)
                    raise _Stop(
                        FailureKind.TRANSPORT,
                        f"turn {index + 1}: HTTP {status} from {target.method} {target.url}: {excerpt}",
                    )
    except _Stop as stop:
        stopped = stop.stop
    return Transcript(
        turns=renumbered(turns),
        scenario=case.id or case.name,
        run=session_id,
        source=target.url,
        started_ms=started_ms,
        stop=stopped,
        request_ids=tuple(request_ids),
    )


def _live_send(client: httpx2.AsyncClient, target: HttpTarget, environ: Mapping[str, str]) -> Send:
    """Requests sent over the network with the target's headers, its credential (raises _Stop when that is
    not set) and the request id header; the duration is measured around the request."""

    async def send(request: HttpRequest) -> HttpAnswer:
        headers = {**request_headers(target, environ), target.request_id_header: request.request_id}
        started = time.perf_counter()
        response = await client.request(request.method, request.url, json=request.body, headers=headers)
        duration_ms = (time.perf_counter() - started) * 1000
        body = decode_body(response.content, response.headers.get("content-type", ""))
        return HttpAnswer(status=response.status_code, body=body, duration_ms=duration_ms)

    return send


async def _exchange(
    send: Send, case: AgentCase, target: HttpTarget, index: int, user: str, ids: tuple[str, str]
) -> Turn:
    """One request (`ids`: its request id, the session id) and its answer as a Turn; raises _Stop when there
    is no answer to record."""
    request_id, session_id = ids
    where = f"turn {index + 1}: {target.method} {target.url}"
    if case.custom_body is not None:
        body = case.custom_body
    else:
        try:
            body = fill_template(target.body, template_variables(case.context, user, request_id, session_id))
        except TemplateError as error:
            raise _Stop(FailureKind.CONFIG, f"turn {index + 1}: {error}") from None
    request = HttpRequest(index + 1, user, target.method, target.url, body, request_id, session_id)
    try:
        with anyio.fail_after(target.timeout_s):
            answer = await send(request)
    except (TimeoutError, httpx2.TimeoutException):
        raise _Stop(FailureKind.TIMEOUT, f"{where}: no answer within {target.timeout_s:g}s") from None
    except httpx2.HTTPError as error:
        detail = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        raise _Stop(FailureKind.TRANSPORT, f"{where}: cannot reach the agent ({detail})") from None
    try:
        reply, calls, nodes = read_response(answer.body, target, target.url)
    except TraceError as error:
        raise _Stop(FailureKind.PROTOCOL, f"{where}: the inline trace is malformed ({error})") from None
    turn = Turn(
        user=user,
        reply=reply,
        calls=calls,
        nodes=nodes,
        http_status=answer.status,
        duration_ms=answer.duration_ms,
        body=answer.body,
    )
    return with_found_usage(turn)


def _status_checked(case: AgentCase, index: int) -> bool:
    """Whether the case checks the HTTP status of turn `index` (then an error status is data for it)."""
    return any(
        isinstance(check, StatusCheck) and turn in (None, index) for turn, check in case.all_assertions()
    )


def _excerpt(body: Any) -> str:
    text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
    return text if len(text) <= BODY_EXCERPT_CHARS else text[:BODY_EXCERPT_CHARS] + "..."
