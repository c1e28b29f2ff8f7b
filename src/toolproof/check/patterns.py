"""Regular expressions of the three flavors a check may be written in (Go RE2, JavaScript, Python's `regex`),
compiled once and matched with a time bound."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from toolproof.core.re2_patterns import RE2PatternError, compile_re2
from toolproof.model.scenario import RegexFlavor


class PatternError(ValueError):
    """A regular expression its flavor rejects, or one that ran out of time."""

    headline = "Invalid regex"

    def __init__(self, pattern: str, reason: str) -> None:
        super().__init__(f"{self.headline}: {pattern} ({reason})")
        self.pattern = pattern
        self.reason = reason


class PatternTimeout(PatternError):
    """A regular expression that took longer than REGEX_TIMEOUT_S on one text."""

    headline = "Regex timed out"


def regex_search(pattern: str, text: str, flavor: RegexFlavor, ignore_case: bool = False) -> bool:
    """Whether `pattern` matches somewhere in `text`, time-bounded; raises `PatternError`."""
    if flavor == "re2":  # linear time: no time bound needed
        try:
            return compile_re2(f"(?i){pattern}" if ignore_case else pattern).search(text) is not None
        except RE2PatternError as error:
            raise PatternError(pattern, error.reason) from None
    import regex  # the other flavors run on the regex module, loaded only when such a pattern is matched

    from toolproof.core.jsregex import REGEX_TIMEOUT_S, JSRegexError, compile_js

    try:
        if flavor == "js":
            return (
                compile_js(pattern, "i" if ignore_case else "").search(text, timeout=REGEX_TIMEOUT_S)
                is not None
            )
        return _compile_python(pattern, ignore_case).search(text, timeout=REGEX_TIMEOUT_S) is not None
    except JSRegexError as error:
        raise PatternError(pattern, error.reason) from None
    except regex.error as error:
        raise PatternError(pattern, str(error)) from None
    except TimeoutError:
        raise PatternTimeout(pattern, f"matching took longer than {REGEX_TIMEOUT_S:g}s") from None


@lru_cache(maxsize=1024)
def _compile_python(pattern: str, ignore_case: bool) -> Any:
    import regex

    return regex.compile(pattern, regex.IGNORECASE if ignore_case else 0)
