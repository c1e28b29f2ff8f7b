"""Every way a request can fail, as one exception carrying a classified `Failure`.

The SDK and httpx load only when an error is classified, so that starting a server needs neither."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio
from pydantic import ValidationError

from toolproof.core.sanitize import unframed_lines
from toolproof.model.result import Failure, FailureKind

if TYPE_CHECKING:
    import httpx2
    from mcp.shared.exceptions import MCPError

PROTOCOL_VIOLATION = "toolproof/protocol-violation"
"""Key in the `data` of an error response toolproof synthesizes for a reply it could not read."""

# Error responses the SDK's HTTP transport makes up for an HTTP status; real only when a status was seen.
_HTTP_STAND_INS = frozenset({"Server returned an error response", "Session terminated", "Not Found"})
# Error responses it makes up for a reply it could not read as JSON-RPC (the server sent no error at all).
_UNREADABLE_STAND_INS = (
    "Failed to parse JSON response: ",
    "Failed to parse SSE message: ",
    "Unexpected content type: ",
)
_SDK_TIMEOUT = re.compile(r"Request '.*' timed out")
# The error codes the 2026-07-28 revision defines, by name.
MCP_ERRORS = {
    -32020: "HeaderMismatch",
    -32021: "MissingRequiredClientCapability",
    -32022: "UnsupportedProtocolVersion",
}
_STDERR_HINT_LINES = 3
_STDERR_HINT_CHARS = 300
_REPLY_EXCERPT_CHARS = 200


class RequestFailed(Exception):
    """A request, or the connection itself, failed; `failure` says how. `stderr` is the server's tail."""

    def __init__(self, failure: Failure, stderr: str = "") -> None:
        super().__init__(failure.message)
        self.failure = failure
        self.stderr = stderr


class SpawnFailed(Exception):
    """The server process could not be started."""


@dataclass(frozen=True)
class TransportFault:
    """What the transport saw go wrong, for failures the SDK reports only as "connection closed"."""

    kind: FailureKind
    message: str


_EXPECTED: tuple[type[BaseException], ...] = (
    ValidationError,
    RuntimeError,
    TimeoutError,
    OSError,
    SpawnFailed,
    anyio.BrokenResourceError,
    anyio.ClosedResourceError,
    anyio.EndOfStream,
)


def expected(exc: BaseException) -> bool:
    """Whether `exc` (or the error inside its groups) is one a server or the network can cause: the SDK's
    error responses, HTTP errors, `_EXPECTED` and the SDK's OAuth flow errors. Anything else is a bug in
    toolproof and is not caught."""
    import httpx2
    from mcp.shared.exceptions import MCPError

    error = leaf(exc)
    return isinstance(error, (MCPError, httpx2.HTTPError, *_EXPECTED)) or _oauth_failure(error)


def _oauth_failure(error: BaseException) -> bool:
    """Whether `error` is an OAuth flow error (the SDK's OAuth client is imported only on this error path:
    a stdio server never needs it)."""
    from mcp.client.auth import OAuthFlowError

    return isinstance(error, OAuthFlowError)


_ISSUER_MISMATCH = re.compile(r"Authorization server metadata issuer mismatch: (\S+) != (\S+)")


def _oauth_text(error: BaseException) -> str:
    """The SDK's OAuth error, with which value is which when metadata names another issuer."""
    text = str(error)
    mismatch = _ISSUER_MISMATCH.search(text)
    if mismatch:
        given, expected = mismatch.groups()
        text += (
            f" (the metadata fetched for the authorization server {expected} gives its issuer as {given}; "
            "RFC 8414 §3.3 requires the two to be equal, so the metadata is refused)"
        )
    return text


def leaf(exc: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups, preferring anything over a cancellation."""
    while isinstance(exc, BaseExceptionGroup):
        errors = [e for e in exc.exceptions if not is_cancellation(e)]
        exc = (errors or list(exc.exceptions))[0]
    return exc


def is_cancellation(exc: BaseException) -> bool:
    """Whether `exc` is the running async backend's cancellation (never true outside an event loop)."""
    try:
        return isinstance(exc, anyio.get_cancelled_exc_class())
    except anyio.NoEventLoopError:
        return False


def stderr_hint(stderr: str) -> str:
    """The last few non-blank lines of a stderr tail (a Rich traceback's frames taken off, so its exception
    shows), short enough for a one-line message."""
    lines = [line.strip() for line in unframed_lines(stderr) if line.strip()][-_STDERR_HINT_LINES:]
    hint = " | ".join(lines)
    return hint if len(hint) <= _STDERR_HINT_CHARS else "..." + hint[-_STDERR_HINT_CHARS:]


def classify(
    exc: BaseException,
    *,
    during: str,
    stderr: str = "",
    fault: TransportFault | None = None,
    timeout: float | None = None,
) -> Failure:
    """Turn an exception from the SDK, the transport or the process into a Failure a person can act on.

    `during` names the operation ("initialize", "tools/call echo"); `fault` is what the transport saw
    go wrong, if anything; `timeout` is the request timeout that applied.
    """
    import httpx2
    from mcp.shared.exceptions import MCPError

    error = leaf(exc)
    details: dict[str, Any] = {"during": during}
    if isinstance(error, MCPError):
        return _from_error_response(error, during, stderr, fault, timeout)
    if isinstance(error, ValidationError):
        return Failure(kind=FailureKind.PROTOCOL, message=_invalid_reply(error, during), details=details)
    if isinstance(error, RuntimeError):
        return Failure(kind=FailureKind.PROTOCOL, message=f"{during}: {error}", details=details)
    if isinstance(error, TimeoutError):
        return _transportish(FailureKind.TIMEOUT, f"{during}: {_timed_out(timeout)}", stderr, details)
    if isinstance(error, httpx2.HTTPStatusError):
        response, request = error.response, error.request
        text = f"HTTP {response.status_code} {response.reason_phrase} from {request.method} {request.url}"
        return _transportish(FailureKind.TRANSPORT, f"{during}: {text}", stderr, details)
    if isinstance(error, httpx2.HTTPError):
        text = f"cannot reach {_url_of(error)} ({type(error).__name__}: {error or 'no detail'})"
        return _transportish(FailureKind.TRANSPORT, f"{during}: {text}", stderr, details)
    if _oauth_failure(error):
        return _transportish(FailureKind.TRANSPORT, f"{during}: OAuth: {_oauth_text(error)}", stderr, details)
    if isinstance(error, SpawnFailed):
        return _transportish(FailureKind.TRANSPORT, f"{during}: {error}", stderr, details)
    if fault is not None:
        return _transportish(fault.kind, f"{during}: {fault.message}", stderr, details)
    return _transportish(FailureKind.TRANSPORT, f"{during}: {type(error).__name__}: {error}", stderr, details)


def _invalid_reply(error: ValidationError, during: str) -> str:
    """Why a reply failed the protocol schema."""
    problems = error.errors()
    where = ".".join(str(part) for part in problems[0]["loc"]) or "result"
    problem = f"{error.error_count()} errors; {where}: {problems[0]['msg']}"
    return f"{during}: the server's reply is not valid MCP ({problem})"


def excerpt(text: str) -> str:
    """`text`, cut to a length that fits a one-line message."""
    return text if len(text) <= _REPLY_EXCERPT_CHARS else text[:_REPLY_EXCERPT_CHARS] + "..."


def _from_error_response(
    error: MCPError, during: str, stderr: str, fault: TransportFault | None, timeout: float | None
) -> Failure:
    from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

    details: dict[str, Any] = {"during": during}
    if isinstance(error.data, dict) and PROTOCOL_VIOLATION in error.data:
        return Failure(kind=FailureKind.PROTOCOL, message=f"{during}: {error.message}", details=details)
    if error.data is None and error.message.startswith(_UNREADABLE_STAND_INS):
        message = f"{during}: {_unreadable(error, fault)}"
        return Failure(kind=FailureKind.PROTOCOL, message=message, details=details)
    if error.code == REQUEST_TIMEOUT and error.data is None and _SDK_TIMEOUT.fullmatch(error.message):
        return _transportish(FailureKind.TIMEOUT, f"{during}: {_timed_out(timeout)}", stderr, details)
    if error.code == CONNECTION_CLOSED and error.data is None and error.message == "Connection closed":
        if fault is None:
            return _transportish(FailureKind.TRANSPORT, f"{during}: the connection closed", stderr, details)
        return _transportish(fault.kind, f"{during}: {fault.message}", stderr, details)
    if fault is not None and error.data is None and error.message in _HTTP_STAND_INS:
        return _transportish(fault.kind, f"{during}: {fault.message}", stderr, details)
    details.update(code=error.code, message=error.message, data=error.data)
    message = f"{during}: the server answered with JSON-RPC error {error.code}: {error.message}"
    name = MCP_ERRORS.get(error.code)
    if name is not None:
        details["error"] = name
        message = f"{during}: the server answered with {name} ({error.code}): {error.message}"
        message += _what_it_wants(error.data)
    return Failure(kind=FailureKind.RPC_ERROR, message=message, details=details)


def _what_it_wants(data: Any) -> str:
    """What the data of a 2026 error asks for: the protocol versions the server supports, or the client
    capabilities it requires."""
    if not isinstance(data, dict):
        return ""
    supported = data.get("supported")
    if isinstance(supported, list) and supported:
        return f" (it supports {', '.join(str(version) for version in supported)})"
    required = data.get("requiredCapabilities")
    if isinstance(required, dict) and required:
        return f" (it requires the client capabilities {', '.join(str(name) for name in required)})"
    return ""


def _unreadable(error: MCPError, fault: TransportFault | None) -> str:
    """Why the SDK could not read a reply: what the transport saw, else the SDK's own words, shortened."""
    if fault is not None and fault.kind is FailureKind.PROTOCOL:
        return fault.message
    return f"the server's reply is not JSON-RPC ({excerpt(' '.join(error.message.split()))})"


def _url_of(error: httpx2.HTTPError) -> str:
    try:
        return str(error.request.url)
    except RuntimeError:
        return "the server"


def _timed_out(timeout: float | None) -> str:
    return f"no answer within {timeout:g}s" if timeout is not None else "no answer in time"


def _transportish(kind: FailureKind, message: str, stderr: str, details: dict[str, Any]) -> Failure:
    hint = stderr_hint(stderr)
    return Failure(kind=kind, message=f"{message} (stderr: {hint})" if hint else message, details=details)
