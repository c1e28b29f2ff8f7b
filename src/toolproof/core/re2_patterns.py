"""Go-compatible regular expressions: RE2 syntax, linear-time matching, compiled once per pattern."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Protocol, cast

from toolproof.core.gofmt import quote


class RE2Match(Protocol):
    def start(self) -> int: ...

    def end(self) -> int: ...

    def group(self) -> str: ...


class RE2Pattern(Protocol):
    """The part of a compiled google-re2 pattern the checkers use."""

    @property
    def pattern(self) -> str: ...

    def search(self, text: str) -> RE2Match | None: ...


class RE2PatternError(ValueError):
    """A pattern RE2 (and so Go's regexp) rejects, e.g. lookaround or a backreference."""

    def __init__(self, pattern: str, reason: str) -> None:
        super().__init__(f"invalid RE2 pattern {quote(pattern)}: {reason}")
        self.pattern = pattern
        self.reason = reason


@lru_cache(maxsize=1)
def _options() -> Any:
    import re2  # loaded only when an RE2 pattern is compiled

    options = re2.Options()
    options.log_errors = False  # RE2 would otherwise print every rejected pattern on stderr
    return options


@lru_cache(maxsize=1024)
def compile_re2(pattern: str) -> RE2Pattern:
    """The compiled pattern; raises `RE2PatternError` naming the pattern and RE2's reason."""
    import re2

    try:
        return cast(RE2Pattern, re2.compile(pattern, _options()))
    except re2.error as error:
        reason = error.args[0] if error.args else "rejected"
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise RE2PatternError(pattern, str(reason)) from None
