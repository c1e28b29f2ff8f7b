"""Volatile values are masked; stable text is left alone; user patterns are bounded in time."""

from __future__ import annotations

import pytest

from toolproof.author.masks import MaskError, check_pattern, is_volatile, mask


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ('{"datetime": "2026-11-25T00:40:12.5+01:00"}', '{"datetime": "<datetime>"}'),
        ("on 2026-11-25 at noon", "on <datetime> at noon"),
        ("2026-11-25T00:40:00Z", "<datetime>"),
        ("created: Wed Nov 25 2026 00:38:22 GMT+0000", "created: <date> <time> GMT+0000"),
        ("Date: Tue, 3 Jun 2008 11:05:30 GMT", "Date: <date> <time> GMT"),
        ("due on Friday", "due on <weekday>"),
        ("id 123e4567-e89b-12d3-a456-426614174000.", "id <uuid>."),
        ("commit 9fceb02d0ae598e95dc970b74767f19372d61af8", "commit <hex>"),
        ("ETAG 0x1A2B3C4D5E6F7A8B", "ETAG <hex>"),
        ("wrote /tmp/toolproof-fixture-x1y2/fixtures/hello.txt", "wrote <tmp>/fixtures/hello.txt"),
        ('"path": "/var/folders/ab/T/tmpq1", "n": 1', '"path": "<tmp>/T/tmpq1", "n": 1'),
    ],
)
def test_builtin_masks(text: str, masked: str) -> None:
    assert mask(text) == masked


@pytest.mark.parametrize(
    "text",
    ["Hello, world!", "sum is 1234567890123", "cafe babe", "deadbeef", "version 1.2.3", "/home/user/tmp/x"],
)
def test_stable_text_is_not_masked(text: str) -> None:
    assert mask(text) == text
    assert not is_volatile(text)


def test_user_patterns_apply_after_the_builtin_ones() -> None:
    assert mask("request 42 took 17ms", [r"\d+ms", r"request \d+"]) == "<masked> took <masked>"


def test_a_pattern_that_does_not_compile_is_named() -> None:
    assert "does not compile" in (check_pattern("(unclosed") or "")
    with pytest.raises(MaskError, match="unclosed"):
        mask("text", ["(unclosed"])


def test_a_catastrophic_pattern_times_out() -> None:
    with pytest.raises(MaskError, match="took longer than"):
        mask("a" * 40 + "!", [r"(a|aa)+$"])
