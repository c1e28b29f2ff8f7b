"""Bounded concurrency and retries for calls to a model API.

Every adapter sends its requests through one `Dispatcher`: at most `max_concurrency` requests of a provider
are in flight at once, and a request that fails with HTTP 429, a 5xx status or a connection error is tried
again after an exponential backoff with jitter (or after the server's `Retry-After`, when it sends one), up to
`max_attempts` tries in all. Any other failure, or the last one, becomes a `ProviderError` naming the
provider, the model, the status and the server's own message. The SDKs' built-in retries are switched off by
the adapters, so these are the only ones.
"""

from __future__ import annotations

import math
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

import anyio

from toolproof.providers.base import ProviderError

T = TypeVar("T")
_MESSAGE_LIMIT = 500


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a failed request is tried again.

    The n-th retry waits `base_delay * 2**(n-1)` seconds (at most `max_delay`), less a random part of up to
    `jitter` of it; a server's `Retry-After` replaces that wait (capped at `max_retry_after`). `sleep` is
    how the wait is spent (replaced in tests to record the waits instead).
    """

    max_attempts: int = 4
    base_delay: float = 0.5
    max_delay: float = 20.0
    max_retry_after: float = 60.0
    jitter: float = 0.5
    sleep: Callable[[float], Awaitable[None]] = field(default=anyio.sleep, compare=False)

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")


@dataclass(frozen=True)
class FailedAttempt:
    """A failed request as the retry logic sees it: the HTTP status (None when no answer came back), the
    server's message, and how long the server asked us to wait."""

    status: int | None
    message: str
    retry_after: float | None = None

    @property
    def retryable(self) -> bool:
        return self.status is None or self.status == 429 or self.status >= 500


def backoff_delay(attempt: int, policy: RetryPolicy, failure: FailedAttempt, fraction: float) -> float:
    """Seconds to wait after failed attempt `attempt` (1-based); `fraction` in [0, 1) draws the jitter."""
    if failure.retry_after is not None:
        return min(max(failure.retry_after, 0.0), policy.max_retry_after)
    delay = min(policy.base_delay * 2.0 ** (attempt - 1), policy.max_delay)
    return delay * (1 - policy.jitter * fraction)


def parse_retry_after(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    """Seconds asked for by `retry-after-ms` or `retry-after` (a number of seconds or an HTTP date)."""
    milliseconds = _number(headers.get("retry-after-ms"))
    if milliseconds is not None:
        return milliseconds / 1000
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _number(value)
    if seconds is not None:
        return seconds
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - (now or datetime.now(UTC))).total_seconds(), 0.0)


def _number(text: str | None) -> float | None:
    try:
        value = float(text) if text is not None else None
    except ValueError:
        return None
    return value if value is not None and math.isfinite(value) and value >= 0 else None


def server_message(body: object, fallback: str) -> str:
    """The human message in an error body (`{"error": {"message": ...}}` or `{"message": ...}`), else
    the body's text, else `fallback`."""
    if isinstance(body, Mapping):
        error = body.get("error", body)
        message = error.get("message") if isinstance(error, Mapping) else error
        if isinstance(message, str) and message:
            return message
    if isinstance(body, str) and body.strip():
        return body.strip()
    return fallback


def sdk_classifier(
    status_error: type[Exception], connection_error: type[Exception]
) -> Callable[[Exception], FailedAttempt | None]:
    """A classifier for an official SDK's exceptions (the OpenAI and Anthropic SDKs share their shape): an
    HTTP status error or a connection error as a FailedAttempt, anything else None."""

    def classify(error: Exception) -> FailedAttempt | None:
        if isinstance(error, status_error):
            failed: Any = error
            message = server_message(failed.body, failed.message)
            return FailedAttempt(failed.status_code, message, parse_retry_after(failed.response.headers))
        if isinstance(error, connection_error):
            cause = f" ({error.__cause__})" if error.__cause__ else ""
            return FailedAttempt(None, f"{getattr(error, 'message', error)}{cause}")
        return None

    return classify


def describe(provider: str, model: str, failure: FailedAttempt, attempts: int, secret: str | None) -> str:
    """The ProviderError message for `failure`: provider, model, status and server message, never `secret`."""
    what = f"HTTP {failure.status}" if failure.status is not None else "no response"
    message = failure.message
    if secret:
        message = message.replace(secret, "***")
    if len(message) > _MESSAGE_LIMIT:
        message = message[:_MESSAGE_LIMIT] + "…"
    tries = f" (gave up after {attempts} attempts)" if attempts > 1 else ""
    return f"{provider} model {model!r}: {what}: {message}{tries}"


class Dispatcher:
    """Sends a provider's requests: bounded concurrency, retries, and failures turned into ProviderError.

    `classify` maps an exception raised by a send to a `FailedAttempt`, or to None when it is not a failure of
    the call (a bug), which then propagates unchanged.
    """

    def __init__(
        self,
        provider: str,
        classify: Callable[[Exception], FailedAttempt | None],
        *,
        max_concurrency: int = 4,
        policy: RetryPolicy | None = None,
        secret: str | None = None,
    ) -> None:
        self.provider = provider
        self.policy = policy or RetryPolicy()
        self.limiter = anyio.CapacityLimiter(max_concurrency)
        self._classify = classify
        self._secret = secret
        self._random = random.Random()  # noqa: S311 - jitter, not cryptography

    async def send(self, model: str, call: Callable[[], Awaitable[T]]) -> T:
        """`call()`'s result, retried per the policy; a slot of the limiter is held only while in flight."""
        attempt = 0
        while True:
            attempt += 1
            try:
                async with self.limiter:
                    return await call()
            except Exception as error:
                failure = self._classify(error)
                if failure is None:
                    raise
                if not failure.retryable or attempt >= self.policy.max_attempts:
                    message = describe(self.provider, model, failure, attempt, self._secret)
                    raise ProviderError(message) from error
            await self.policy.sleep(backoff_delay(attempt, self.policy, failure, self._random.random()))
