"""The pure parts of the retry module: waits, Retry-After parsing, error messages."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from toolproof.providers.retry import (
    FailedAttempt,
    RetryPolicy,
    backoff_delay,
    describe,
    parse_retry_after,
    server_message,
)

NOW = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("status", "retryable"), [(None, True), (429, True), (500, True), (529, True), (400, False), (404, False)]
)
def test_which_failures_are_retried(status: int | None, retryable: bool) -> None:
    assert FailedAttempt(status, "x").retryable is retryable


def test_backoff_doubles_up_to_the_cap_and_jitter_only_shortens() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=5.0, jitter=0.5)
    failure = FailedAttempt(500, "x")
    assert [backoff_delay(n, policy, failure, 0.0) for n in (1, 2, 3, 4, 5)] == [1.0, 2.0, 4.0, 5.0, 5.0]
    assert backoff_delay(2, policy, failure, 0.999) == pytest.approx(1.001)


def test_retry_after_replaces_the_backoff_and_is_capped() -> None:
    policy = RetryPolicy(max_retry_after=30.0)
    assert backoff_delay(1, policy, FailedAttempt(429, "x", retry_after=12.5), 0.7) == 12.5
    assert backoff_delay(1, policy, FailedAttempt(429, "x", retry_after=3600), 0.7) == 30.0


def test_a_policy_needs_one_attempt() -> None:
    with pytest.raises(ValueError, match="max_attempts"):
        RetryPolicy(max_attempts=0)


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after": "3"}, 3.0),
        ({"retry-after": "1.5"}, 1.5),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after": "Thu, 01 Jan 2026 12:00:20 GMT"}, 20.0),
        ({"retry-after": "Thu, 01 Jan 2026 11:00:00 GMT"}, 0.0),
        ({"retry-after": "soon"}, None),
        ({"retry-after": "-4"}, None),
        ({}, None),
    ],
)
def test_parse_retry_after(headers: dict[str, str], seconds: float | None) -> None:
    assert parse_retry_after(headers, NOW) == seconds


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"error": {"message": "Rate limit reached", "type": "requests"}}, "Rate limit reached"),
        ({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}, "Overloaded"),
        ({"message": "bad gateway"}, "bad gateway"),
        ({"error": "plain error text"}, "plain error text"),
        ("  <html>502</html> ", "<html>502</html>"),
        (None, "fallback"),
        ({"detail": 1}, "fallback"),
    ],
)
def test_server_message(body: object, expected: str) -> None:
    assert server_message(body, "fallback") == expected


def test_describe_hides_the_secret_and_shortens_long_messages() -> None:
    text = describe("openai", "gpt-x", FailedAttempt(500, "key sk-abc " + "x" * 1000), 1, "sk-abc")
    assert text.startswith("openai model 'gpt-x': HTTP 500: key *** xxx")
    assert "sk-abc" not in text
    assert len(text) < 600
    assert "gave up" not in text
