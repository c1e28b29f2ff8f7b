"""RFC 9535 JSONPath with time-bounded `match()` and `search()`: a filter's pattern comes from a file or a
server, so each runs within REGEX_TIMEOUT_S on each string, as every other pattern toolproof runs does."""

from __future__ import annotations

from typing import Any

import regex
from iregexp_check import check
from jsonpath_rfc9535 import JSONPathEnvironment, function_extensions
from jsonpath_rfc9535.function_extensions._pattern import map_re

from toolproof.core.jsregex import REGEX_TIMEOUT_S


class SlowPattern(Exception):
    """A `match()` or `search()` pattern took longer than REGEX_TIMEOUT_S on one string."""

    def __init__(self, function: str, pattern: str) -> None:
        super().__init__(f"the {function}() pattern {pattern!r} took more than {REGEX_TIMEOUT_S:g}s")


def _bounded(function: str, pattern: object, run: Any) -> bool:
    """The standard function's result (false for a pattern that is not I-Regexp), within the time bound."""
    if not isinstance(pattern, str) or not check(pattern):
        return False
    try:
        return bool(run(map_re(pattern)))
    except TimeoutError:
        raise SlowPattern(function, pattern) from None
    except (TypeError, regex.error):
        return False


class _Match(function_extensions.Match):
    def __call__(self, string: str, pattern: object) -> bool:
        return _bounded("match", pattern, lambda re: regex.fullmatch(re, string, timeout=REGEX_TIMEOUT_S))


class _Search(function_extensions.Search):
    def __call__(self, string: str, pattern: object) -> bool:
        return _bounded(
            "search", pattern, lambda re: regex.search(re, string, regex.VERSION1, timeout=REGEX_TIMEOUT_S)
        )


class BoundedEnvironment(JSONPathEnvironment):
    """The standard environment, its `match` and `search` time-bounded."""

    def setup_function_extensions(self) -> None:
        super().setup_function_extensions()
        self.function_extensions["match"] = _Match()
        self.function_extensions["search"] = _Search()


JSONPATH = BoundedEnvironment()
