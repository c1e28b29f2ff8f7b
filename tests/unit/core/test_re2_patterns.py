"""RE2 compilation: Go's syntax, clear errors, a cache, linear time."""

from __future__ import annotations

import pytest

from toolproof.core.re2_patterns import RE2PatternError, compile_re2


def test_compiles_and_searches_unanchored() -> None:
    match = compile_re2(r"b(\d+)").search("ab123c")
    assert match is not None
    assert (match.start(), match.end(), match.group()) == (1, 5, "b123")


def test_compiled_patterns_are_cached() -> None:
    assert compile_re2("cached+") is compile_re2("cached+")


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("(?=a)", "invalid perl operator: (?="),  # lookahead: Go's regexp rejects it too
        (r"(a)\1", r"invalid escape sequence: \1"),  # backreference
        (r"a\Z", r"invalid escape sequence: \Z"),
        ("(", "missing ): ("),
    ],
)
def test_rejected_patterns_raise_with_the_reason(pattern: str, reason: str) -> None:
    with pytest.raises(RE2PatternError) as caught:
        compile_re2(pattern)
    assert caught.value.pattern == pattern
    assert caught.value.reason == reason
    assert str(caught.value).startswith("invalid RE2 pattern ")


def test_go_flags_and_classes() -> None:
    assert compile_re2("(?i)HELLO").search("say hello") is not None
    assert compile_re2("(?m)^b$").search("a\nb") is not None
    assert compile_re2("^b").search("a\nb") is None
    # seen in mcp-assert 0.12.3: `^\w$` does not match "é" (ASCII \w) but `^.$` does (UTF-8 aware)
    assert compile_re2(r"^\w$").search("é") is None
    assert compile_re2("^.$").search("é") is not None


def test_matching_is_linear_time_on_a_catastrophic_pattern() -> None:
    # A backtracking engine (Python's re) takes minutes on this; RE2 answers at once.
    assert compile_re2("(a+)+$").search("a" * 40 + "b") is None
