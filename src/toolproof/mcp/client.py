"""One conversation with a started server over the official SDK: initialize, make requests, and see
everything that came back.

Requests go out exactly as built and results come back exactly as sent (camelCase wire keys), checked
only against the protocol schema: no client-side output-schema validation. In the 2026-07-28 era, a
result without `resultType` is complete, and a result that asks for input (sampling, elicitation, roots) is
answered from the same mocks that answer the handshake era's server-to-client requests, and the request is
sent again. Over HTTP in that era, a tool's `x-mcp-header` parameters are mirrored into `Mcp-Param-*`
headers: the tools are listed once before the first call, and a tool whose declaration is invalid is
excluded (listed by `excluded_tools`, never called). In that era a subscription to a resource, and the
list changes an `assert_notifications` case waits for, come over `subscriptions/listen` streams, open until
unsubscribed or the end of the session. Every failure is raised as `RequestFailed`.
"""

from __future__ import annotations

import json
import logging
import time
import warnings
from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager, AsyncExitStack, contextmanager
from typing import Any, ClassVar, Protocol

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.session import ClientRequestContext
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp.shared.inbound import find_invalid_x_mcp_header, x_mcp_header_map
from mcp_types.methods import validate_server_result
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, ConfigDict, ValidationError

from toolproof._version import __version__
from toolproof.mcp.channels import channel_for
from toolproof.mcp.errors import RequestFailed, TransportFault, classify, excerpt, expected
from toolproof.mcp.mocks import elicitation_callback, roots_callback, sampling_callback
from toolproof.mcp.process import ServerProcess
from toolproof.mcp.sdk_private import TransportStreams, mirror_tool_headers
from toolproof.mcp.spec import HANDSHAKE_ERA, ConnectSpec, ProtocolMode
from toolproof.mcp.tap import WireRecord, WireTap
from toolproof.mcp.tasks import TaskExtension, TaskFollower, is_task, unfinished_failure
from toolproof.model.observation import Notification, TaskRecord
from toolproof.model.result import Failure, FailureKind
from toolproof.model.server_case import TaskOptions
from toolproof.model.server_config import Transport

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

MAX_PAGES = 1000
MAX_INPUT_ROUNDS = 10
STATE_ONLY_WAIT_S = 0.05
INPUT_REQUIRED = "input_required"
COMPLETE = "complete"
LIST_CHANGES = "list changes"  # the key of the listen stream for list changes (a resource's is its URI)
MOCK_KEYS = {"sampling/createMessage": "sampling", "elicitation/create": "elicitation", "roots/list": "roots"}
CLIENT_INFO = types.Implementation(name="toolproof", version=__version__)
SDK_LOGGERS = ("mcp", "client")  # the SDK's client session logs under the bare name "client"


def _quiet_sdk_logging() -> None:
    """Keep the SDK's log records (tracebacks for messages it drops) off the user's terminal: toolproof
    records what a server sent itself, and says what went wrong in the case's own failure."""
    for name in SDK_LOGGERS:
        sdk = logging.getLogger(name)
        sdk.addHandler(logging.NullHandler())
        sdk.propagate = False


_quiet_sdk_logging()


class Channel(Protocol):
    """A transport to one server: the SDK stream pair, and what went wrong with it, if anything."""

    fault: TransportFault | None

    def streams(self) -> AbstractAsyncContextManager[TransportStreams]: ...


class _Request(types.Request[dict[str, Any] | None, str]):
    """A request sent as built: its params are not validated on the client side."""


class _TaskRequest(_Request):
    """A tasks/* request: over HTTP its `Mcp-Name` header carries the task's id (SEP-2663)."""

    name_param: ClassVar[str | None] = "taskId"


class _Result(BaseModel):
    """A result kept exactly as the server sent it (it has passed the SDK's protocol check)."""

    model_config = ConfigDict(extra="allow")

    def wire(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


class Session:
    """An initialized connection to a server.

    `notifications` holds every server notification so far, in arrival order, each stamped with
    seconds since `open_session` began; `mark()` is an index into it. `stderr` is the server's stderr
    tail (stdio only), `protocol_errors` what it wrote to stdout that is not JSON-RPC. `mode` is the era
    asked for (`--protocol`), `over_http` whether the channel is HTTP.
    """

    def __init__(
        self,
        client: Client,
        tap: WireTap,
        channel: Channel,
        server: ServerProcess | None,
        timeout: float,
        stack: AsyncExitStack,
        *,
        mode: ProtocolMode = "legacy",
        over_http: bool = False,
    ) -> None:
        self._client = client
        self._tap = tap
        self._channel = channel
        self._server = server
        self._timeout = timeout
        self._mode = mode
        self._over_http = over_http
        self._progress_token: str | None = None
        self._progress_calls = 0
        self._tools: dict[str, dict[str, Any]] | None = None
        self._excluded: dict[str, str] = {}
        self._stack = stack  # the session's own: closes its listen streams before the connection
        self._listens: dict[str, AsyncExitStack] = {}
        self._following: TaskFollower | None = None

    @property
    def notifications(self) -> list[Notification]:
        return self._tap.notifications

    @property
    def protocol_errors(self) -> list[str]:
        return self._tap.protocol_errors

    @property
    def stray_stdout(self) -> list[str]:
        """The lines the server wrote to stdout that are not JSON-RPC (a banner, a `print()`), in order."""
        return self._tap.stray_stdout

    @property
    def wire(self) -> list[WireRecord]:
        """Every message so far, both directions."""
        return self._tap.records

    @property
    def stderr(self) -> str:
        return self._server.stderr if self._server is not None else ""

    @property
    def pid(self) -> int | None:
        """The server's process id (stdio only)."""
        return self._server.pid if self._server is not None else None

    @property
    def protocol_version(self) -> str:
        return self._client.protocol_version

    @property
    def excluded_tools(self) -> dict[str, str]:
        """Tools left out of the listing because their `x-mcp-header` declaration is invalid, each with why
        (2026-07-28 over HTTP only)."""
        return dict(self._excluded)

    @property
    def _mirrors_headers(self) -> bool:
        """Whether tool parameters are mirrored into headers: the 2026-07-28 era over HTTP (the spec lets
        other transports ignore `x-mcp-header`)."""
        return self._over_http and self.protocol_version in MODERN_PROTOCOL_VERSIONS

    @property
    def server_info(self) -> dict[str, Any]:
        """The server's `serverInfo` as sent (empty when it did not identify itself)."""
        handshake = self._handshake_result()
        if handshake is not None:
            return dict(handshake.get("serverInfo") or {})
        info = self._client.server_info
        return info.model_dump(by_alias=True, mode="json", exclude_none=True) if info is not None else {}

    @property
    def server_capabilities(self) -> dict[str, Any]:
        """The server's capabilities as sent."""
        handshake = self._handshake_result()
        if handshake is not None:
            return dict(handshake.get("capabilities") or {})
        return self._client.server_capabilities.model_dump(by_alias=True, mode="json", exclude_none=True)

    @property
    def task_in_flight(self) -> TaskRecord | None:
        """The record so far of the task the latest tools/call was answered with, while it is followed (and
        after the case's timeout cut it short)."""
        return self._following.record() if self._following is not None else None

    @property
    def progress_count(self) -> int:
        """notifications/progress received so far for the latest `call_tool(..., progress=True)`."""
        token = self._progress_token
        return sum(
            1
            for note in self._tap.notifications
            if note.method == "notifications/progress"
            and isinstance(note.params, dict)
            and note.params.get("progressToken") == token
        )

    def forget_traffic(self) -> None:
        """Drop the messages, notifications and protocol errors recorded after the handshake (between two
        cases on a shared server)."""
        self._tap.forget()

    def calls_refused(self, tools: set[str]) -> bool:
        """Whether every tools/call of one of `tools` recorded since the traffic was last forgotten was
        answered with a JSON-RPC error, so the server ran none of them (True when none was sent)."""
        records = self._tap.records
        asked = {
            r.message.id
            for r in records
            if r.direction == "out"
            and isinstance(r.message, types.JSONRPCRequest)
            and r.message.method == "tools/call"
            and (r.message.params or {}).get("name") in tools
        }
        refused = {
            r.message.id for r in records if r.direction == "in" and isinstance(r.message, types.JSONRPCError)
        }
        return asked <= refused

    def mark(self) -> int:
        """The number of notifications so far: `notifications[mark:]` is what arrived since."""
        return len(self._tap.notifications)

    async def request(
        self, method: str, params: dict[str, Any] | None = None, *, during: str = ""
    ) -> dict[str, Any]:
        """Send any request as built; return its (final) result as sent."""
        with self._failures(during or method):
            return await self._answered(method, params)

    async def _answered(self, method: str, params: dict[str, Any] | None) -> dict[str, Any]:
        """The result of `method`, once every round of input it asked for is answered (SEP-2322)."""
        result = await self._send(method, params)
        rounds = 0
        while result.get("resultType") == INPUT_REQUIRED:
            rounds += 1
            if rounds > MAX_INPUT_ROUNDS:
                raise RuntimeError(f"the server still asked for input after {MAX_INPUT_ROUNDS} rounds")
            result = await self._send(method, await self._with_input(params, result))
        return result

    async def _send(
        self, method: str, params: dict[str, Any] | None, kind: type[_Request] = _Request
    ) -> dict[str, Any]:
        try:
            result = await self._client.session.send_request(kind(method=method, params=params), _Result)
        except ValidationError as error:
            return self._complete_by_default(method, error)
        return result.wire()

    async def task_request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """tasks/get, tasks/update or tasks/cancel, with the task's id as its `Mcp-Name`."""
        return await self._send(method, params, _TaskRequest)

    def _complete_by_default(self, method: str, error: ValidationError) -> dict[str, Any]:
        """The result the SDK refused in `error`, as sent, when its only fault is a missing `resultType`: that
        means `complete` (2026-07-28, SEP-2322). A result that is still invalid as `complete` is named as the
        handshake era's answer it looks like."""
        sent = _untyped_result(error)
        if sent is None:
            raise error
        try:
            validate_server_result(method, self.protocol_version, {**sent, "resultType": COMPLETE})
        except ValidationError as still:
            raise RuntimeError(self._handshake_era_reply(sent, still)) from still
        return sent

    def _handshake_era_reply(self, sent: dict[str, Any], error: ValidationError) -> str:
        """Why a result without `resultType` is not valid in this era, and what to run instead."""
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem["loc"]) or "result"
        instead = f"--protocol {HANDSHAKE_ERA}" + (" or --protocol auto" if self._mode != "auto" else "")
        return (
            f"the server did not answer in the {self.protocol_version} era ({where}: {problem['msg']}): it "
            f"sent a result without resultType, as a server of the {HANDSHAKE_ERA} handshake era does "
            f"({excerpt(json.dumps(sent, ensure_ascii=False, default=str))}); run with {instead}"
        )

    async def _with_input(self, params: dict[str, Any] | None, asked: dict[str, Any]) -> dict[str, Any]:
        """`params` for the retry of a request whose result asked for input: the mocks' answers to its
        input requests and its request state echoed unchanged (2026-07-28, SEP-2322)."""
        parsed = types.InputRequiredResult.model_validate(asked)
        retry = dict(params or {})
        if parsed.input_requests:
            retry["inputResponses"] = {
                key: await self.answer_input(key, request) for key, request in parsed.input_requests.items()
            }
        else:
            retry.pop("inputResponses", None)
            await anyio.sleep(STATE_ONLY_WAIT_S)  # only state: the server is still working
        if parsed.request_state is not None:
            retry["requestState"] = parsed.request_state
        return retry

    async def answer_input(self, key: str, request: types.InputRequest) -> dict[str, Any]:
        """The configured mock's answer to one input request (the same callbacks as the handshake era), for
        an `input_required` result or task."""
        session = self._client.session
        context = ClientRequestContext(session=session, request_id=key, meta=None)
        answer = await session.dispatch_input_request(context, request)
        if isinstance(answer, types.ErrorData):
            option = MOCK_KEYS.get(request.method, request.method)
            raise RuntimeError(
                f"the server asked for {request.method}, which the client did not offer "
                f"(give the case client_capabilities.{option} to answer it)"
            )
        return answer.model_dump(by_alias=True, mode="json", exclude_none=True)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], *, progress: bool = False
    ) -> dict[str, Any]:
        """tools/call; with `progress`, send a progress token and count its notifications (progress_count).
        A call answered with a task is followed to its end; one whose task did not complete raises
        `RequestFailed`."""
        result, task = await self.call_tool_traced(name, arguments, progress=progress)
        if task is not None and task.status != "completed":
            raise RequestFailed(unfinished_failure(task, f"tools/call {name}"), self.stderr)
        return result

    async def call_tool_traced(
        self, name: str, arguments: dict[str, Any], *, progress: bool = False, task: TaskOptions | None = None
    ) -> tuple[dict[str, Any], TaskRecord | None]:
        """tools/call, and the record of the task it was answered with, followed to its terminal status as
        `task` says (None when it was answered at once). The result is the tool's result: the completed
        task's, or empty when the task failed or was cancelled."""
        self._following = None
        if self._mirrors_headers:
            await self._declared_for_call(name)
        params: dict[str, Any] = {"name": name, "arguments": arguments}
        if progress:
            self._progress_calls += 1
            self._progress_token = f"toolproof-{self._progress_calls}"
            params["_meta"] = {"progressToken": self._progress_token}
        started, during = time.perf_counter(), f"tools/call {name}"
        with self._failures(during):
            result = await self._answered("tools/call", params)
            if not is_task(result) or self.protocol_version not in MODERN_PROTOCOL_VERSIONS:
                return result, None
            self._following = TaskFollower(self, result, task or TaskOptions(), started, during)
            final = await self._following.run()
        self._following = None
        return final

    async def _declared_for_call(self, name: str) -> None:
        """Make sure the tool's `x-mcp-header` parameters are known before it is called (the tools are
        listed once per session); raise when the tool was excluded for an invalid declaration."""
        await self.tool_declaration(name)
        if name in self._excluded:
            message = (
                f"tools/call {name}: not called: the tool's x-mcp-header declaration is invalid "
                f"({self._excluded[name]}), so a {self.protocol_version} client excludes it from the tools "
                "it lists"
            )
            raise RequestFailed(Failure(kind=FailureKind.PROTOCOL, message=message), self.stderr)

    def _screened(self, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """`tools` without those whose `x-mcp-header` declaration is invalid (remembered with why); the
        others' header parameters are handed to the SDK, which mirrors them on every call."""
        kept: list[dict[str, Any]] = []
        for tool in tools:
            name = str(tool.get("name"))
            schema = tool.get("inputSchema")
            reason = find_invalid_x_mcp_header(schema)
            if reason is not None:
                self._excluded[name] = reason
                continue
            self._excluded.pop(name, None)
            mirror_tool_headers(self._client.session, name, x_mcp_header_map(schema))
            kept.append(tool)
        return kept

    async def list_tools(self) -> list[dict[str, Any]]:
        """Every tool, following nextCursor through all pages; remembered for `tool_declaration`. Over HTTP
        in the 2026-07-28 era, tools with an invalid `x-mcp-header` declaration are left out
        (`excluded_tools`)."""
        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            page = await self.request("tools/list", {"cursor": cursor} if cursor else None)
            tools.extend(page.get("tools") or [])
            cursor = page.get("nextCursor")
            if not cursor:
                listed = [tool for tool in tools if isinstance(tool, dict)]
                if self._mirrors_headers:
                    listed = self._screened(listed)
                self._tools = {str(tool.get("name")): tool for tool in listed}
                return listed
        message = f"tools/list: still paginating after {MAX_PAGES} pages"
        raise RequestFailed(Failure(kind=FailureKind.PROTOCOL, message=message), self.stderr)

    async def tool_declaration(self, name: str) -> dict[str, Any] | None:
        """The tool as tools/list declared it (None if it is not listed); lists the tools once per session."""
        if self._tools is None:
            await self.list_tools()
        return (self._tools or {}).get(name)

    async def list_resources(self, cursor: str | None = None) -> dict[str, Any]:
        return await self.request("resources/list", _page(cursor))

    async def list_resource_templates(self, cursor: str | None = None) -> dict[str, Any]:
        return await self.request("resources/templates/list", _page(cursor))

    async def read_resource(self, uri: str) -> dict[str, Any]:
        return await self.request("resources/read", {"uri": uri}, during=f"resources/read {uri}")

    async def subscribe(self, uri: str) -> None:
        """resources/subscribe; in the 2026-07-28 era, a `subscriptions/listen` stream for `uri` instead,
        open until `unsubscribe` or the end of the session."""
        if self.protocol_version in MODERN_PROTOCOL_VERSIONS:
            await self._listen(uri, resource_subscriptions=[uri])
            return
        await self.request("resources/subscribe", {"uri": uri}, during=f"resources/subscribe {uri}")

    async def unsubscribe(self, uri: str) -> None:
        """resources/unsubscribe; in the 2026-07-28 era, the end of `uri`'s listen stream."""
        if self.protocol_version in MODERN_PROTOCOL_VERSIONS:
            listening = self._listens.pop(uri, None)
            if listening is not None:
                await listening.aclose()
            return
        await self.request("resources/unsubscribe", {"uri": uri}, during=f"resources/unsubscribe {uri}")

    async def listen_for_changes(self) -> None:
        """In the 2026-07-28 era, open a `subscriptions/listen` stream for every list change (tools, prompts,
        resources), open until the session ends; the handshake era sends them unasked, so nothing there."""
        if self.protocol_version in MODERN_PROTOCOL_VERSIONS and LIST_CHANGES not in self._listens:
            every = {"tools_list_changed": True, "prompts_list_changed": True, "resources_list_changed": True}
            await self._listen(LIST_CHANGES, **every)

    async def _listen(self, key: str, **wanted: Any) -> None:
        """Open a listen stream for what `wanted` names (the SDK's filter), remembered under `key`; its
        notifications arrive in `notifications` like any other. Returns once the server acknowledged it."""
        listening = AsyncExitStack()
        with self._failures(f"subscriptions/listen {key}"):
            await listening.enter_async_context(self._client.listen(**wanted))
        self._listens[key] = listening
        self._stack.push_async_callback(listening.aclose)

    async def list_prompts(self, cursor: str | None = None) -> dict[str, Any]:
        return await self.request("prompts/list", _page(cursor))

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> dict[str, Any]:
        params = {"name": name, "arguments": arguments}
        return await self.request("prompts/get", params, during=f"prompts/get {name}")

    async def complete(
        self, ref: dict[str, Any], argument: dict[str, str], context_arguments: dict[str, str] | None
    ) -> dict[str, Any]:
        """completion/complete; `context` is left out entirely when there are no context arguments."""
        params: dict[str, Any] = {"ref": ref, "argument": argument}
        if context_arguments is not None:
            params["context"] = {"arguments": context_arguments}
        return await self.request("completion/complete", params)

    async def set_log_level(self, level: str) -> None:
        await self.request("logging/setLevel", {"level": level}, during=f"logging/setLevel {level}")

    async def ping(self) -> None:
        await self.request("ping")

    @contextmanager
    def _failures(self, during: str) -> Iterator[None]:
        try:
            yield
        except Exception as error:
            if not expected(error):
                raise
            failure = classify(
                error,
                during=during,
                stderr=self.stderr,
                fault=self._channel.fault,
                timeout=self._timeout,
            )
            raise RequestFailed(failure, self.stderr) from error

    def _handshake_result(self) -> dict[str, Any] | None:
        """The initialize result as it came over the wire, if there was a handshake."""
        records = self._tap.records
        asked = next((r.message for r in records if r.direction == "out" and _is_initialize(r.message)), None)
        if not isinstance(asked, types.JSONRPCRequest):
            return None
        answers = (r.message for r in records if r.direction == "in")
        replies = (a.result for a in answers if isinstance(a, types.JSONRPCResponse) and a.id == asked.id)
        return next(replies, None)


def _page(cursor: str | None) -> dict[str, Any] | None:
    return {"cursor": cursor} if cursor is not None else None


def _untyped_result(error: ValidationError) -> dict[str, Any] | None:
    """The result the SDK validated, when `error` says it lacks a top-level `resultType`."""
    for problem in error.errors():
        location = problem["loc"]
        top_level = len(location) == 1 or (len(location) == 2 and isinstance(location[0], str))
        if problem["type"] == "missing" and location[-1:] == ("resultType",) and top_level:
            sent = problem.get("input")
            return dict(sent) if isinstance(sent, dict) else None
    return None


def _is_initialize(message: types.JSONRPCMessage) -> bool:
    return isinstance(message, types.JSONRPCRequest) and message.method == "initialize"


async def _discover_pinned(client: Client, version: str) -> None:
    """Ask a server the client is pinned to `version` with (`server/discover`) what it offers: the SDK takes
    a pinned era on trust and knows no capabilities then, so a listing would find nothing. A server that does
    not speak the era fails here, naming it; a pinned era never falls back to the handshake."""
    from mcp.shared.exceptions import MCPError

    session = client.session
    try:
        raw = await session.send_discover(version)
    except MCPError as error:
        raise RuntimeError(
            f"server/discover at {version} was answered with error {error.code} ({error.message}): the "
            f"server does not speak the {version} era, and a pinned --protocol never falls back; run with "
            f"--protocol {HANDSHAKE_ERA} or --protocol auto"
        ) from error
    session.adopt(types.DiscoverResult.model_validate(raw))


async def initialize(
    stack: AsyncExitStack, spec: ConnectSpec, server: ServerProcess | None, started: float
) -> Session:
    """Open the channel to `server` (stdio) or to `spec.url`, initialize, and return the session; `stack`
    closes it. Notifications are stamped in seconds since `started`. Raises `RequestFailed` when the
    handshake fails."""
    tap = WireTap(started)
    channel: Channel | None = None
    try:
        channel = channel_for(spec, server)
        mocks = spec.mocks
        client = Client(
            tap.wrap(channel.streams()),
            mode=spec.protocol,
            cache=None,
            read_timeout_seconds=spec.request_timeout,
            client_info=CLIENT_INFO,
            sampling_callback=sampling_callback(mocks.sampling) if mocks.sampling else None,
            elicitation_callback=elicitation_callback(mocks.elicitation) if mocks.elicitation else None,
            list_roots_callback=roots_callback(mocks.roots) if mocks.roots is not None else None,
            extensions=[TaskExtension()],
        )
        await stack.enter_async_context(client)
        if spec.protocol in MODERN_PROTOCOL_VERSIONS:
            await _discover_pinned(client, spec.protocol)
    except Exception as error:
        if not expected(error):
            raise
        stderr = server.stderr if server is not None else ""
        during = "initialize" if channel is not None else "start"
        fault = channel.fault if channel is not None else None
        failure = classify(error, during=during, stderr=stderr, fault=fault, timeout=spec.request_timeout)
        raise RequestFailed(failure, stderr) from error
    http = spec.transport is Transport.HTTP
    return Session(
        client, tap, channel, server, spec.request_timeout, stack, mode=spec.protocol, over_http=http
    )
