"""JSONPath `match()` and `search()` keep RFC 9535's meaning and run with a time bound."""

from __future__ import annotations

import time

import pytest

from toolproof.core.jsonpath import PathSyntaxError, jsonpath_values
from toolproof.core.jsregex import REGEX_TIMEOUT_S

DATA = [{"a": "xyz"}, {"a": "b"}, {"a": 3}]


def test_match_is_whole_string_and_search_is_anywhere() -> None:
    assert jsonpath_values('$[?match(@.a, "x.*")]', DATA) == [{"a": "xyz"}]
    assert jsonpath_values('$[?match(@.a, "y")]', DATA) == []
    assert jsonpath_values('$[?search(@.a, "y")]', DATA) == [{"a": "xyz"}]
    assert jsonpath_values('$[?search(@.a, "[")]', DATA) == []  # not an I-Regexp: no match


@pytest.mark.parametrize(("function", "pattern"), [("match", "(a|a)*"), ("search", "(a|a)*b.")])
def test_a_pattern_that_backtracks_forever_is_stopped(function: str, pattern: str) -> None:
    started = time.monotonic()
    with pytest.raises(PathSyntaxError, match=f"the {function}\\(\\) pattern .* took more than"):
        jsonpath_values(f'$[?{function}(@.a, "{pattern}")]', [{"a": "a" * 40 + "b"}])
    assert time.monotonic() - started < REGEX_TIMEOUT_S * 10  # unbounded, this would take hours
