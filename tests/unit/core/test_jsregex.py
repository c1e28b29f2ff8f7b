"""JavaScript regex semantics: each difference from Python's engines, and agreement where none exists."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolproof.core.jsregex import JSRegexError, compile_js, js_search, strip_leading_flags


@pytest.mark.parametrize(
    ("pattern", "text", "flags", "expected"),
    [
        # \d, \w, \b (and their negations) are ASCII-only in JavaScript
        (r"\d", "٣", "", False),
        (r"\d", "7", "", True),
        (r"\D", "٣", "", True),
        (r"\w", "é", "", False),
        (r"\W", "é", "", True),
        (r"\bcafé\b", "un café noir", "", False),  # no boundary between é and the space
        (r"\bcaf", "un café", "", True),
        (r"x\B", "xé", "", False),
        # $ matches only at the very end of the input (Python's $ also matches before a final newline)
        (r"end$", "the end\n", "", False),
        (r"end$", "the end", "", True),
        (r"end$", "the end\nmore", "m", True),
        (r"a$", "a\rb", "m", True),
        (r"^b", "a\nb", "", False),
        (r"^b", "a\u2028b", "m", True),
        # . excludes \n, \r, U+2028 and U+2029 (Python's . excludes only \n)
        (r"a.b", "a\rb", "", False),
        (r"a.b", "a\u2028b", "", False),
        (r"a.b", "a\u2029b", "", False),
        (r"a.b", "a\tb", "", True),
        (r"a.b", "a\rb", "s", True),
        # named groups are (?<n>...) and \k<n>
        (r"(?<year>\d{4})-\k<year>", "2024-2024", "", True),
        (r"(?<year>\d{4})-\k<year>", "2024-2025", "", False),
        # \s is JavaScript's whitespace set: U+FEFF yes, the information separators no
        (r"\s", "\ufeff", "", True),
        (r"\s", "\x1c", "", False),
        # class oddities
        (r"[]", "anything", "", False),
        (r"[^]", "\n", "", True),
        (r"[\d-z]", "-", "", True),
        (r"[\d-z]", "q", "", False),
        (r"[[:alpha:]]", ":]", "", True),
        (r"[[:alpha:]]", "x", "", False),
        # literal braces and identity escapes
        (r"a{,3}", "a{,3}", "", True),
        (r"\p{L}", "p{L}", "", True),
        (r"\a", "a", "", True),
        # unanchored search and the i flag
        (r"refund\s+(processed|completed)", "Your REFUND  Processed today", "i", True),
        (r"refund\s+(processed|completed)", "Your REFUND  Processed today", "", False),
        (r"(?<=ab+)c", "abbbc", "", True),  # variable-length lookbehind is valid in JavaScript
        # a backreference to a group that has not matched matches the empty string
        (r"(a)|\1b", "b", "", True),  # the group did not take part
        (r"\1(a)", "a", "", True),  # the group comes later
        (r"(?<n>a)|\k<n>b", "b", "", True),
        (r"(a)\1", "aa", "", True),
        (r"(a)\1", "aA", "i", True),
        # Annex B: \N beyond the groups is an octal escape, \8 and \9 the digits, \k without named groups k
        (r"\8", "8", "", True),
        (r"\9", "9", "", True),
        (r"(a)\9", "a9", "", True),
        (r"\1", "\x01", "", True),
        (r"\12", "\n", "", True),
        (r"\18", "\x018", "", True),
        (r"(a)\2", "a\x02", "", True),
        (r"\01", "\x01", "", True),
        (r"[\1]", "\x01", "", True),
        (r"[\1]", "1", "", False),
        (r"[\8]", "8", "", True),
        (r"\k<a>", "k<a>", "", True),
        (r"\k", "k", "", True),
        # the i flag without u: simple upper-case mapping, never from non-ASCII to ASCII
        (r"k", "\u212a", "i", False),  # Kelvin sign
        (r"\u212a", "k", "i", False),
        (r"s", "\u017f", "i", False),  # long s
        (r"[a-z]", "\u212a", "i", False),
        (r"[^k]", "K", "i", False),
        (r"i", "\u0131", "i", False),  # dotless i
        (r"\u00df", "\u1e9e", "i", False),  # capital sharp s
        (r"k", "K", "i", True),
        (r"[a-z]+", "ABC", "i", True),
        (r"\u03c3", "\u03c2", "i", True),  # both upper-case to sigma
        (r"\u00e9", "\u00c9", "i", True),
        (r"(?=a)*b", "b", "", True),  # a quantified lookahead is valid (Annex B)
    ],
)
def test_javascript_meaning(pattern: str, text: str, flags: str, expected: bool) -> None:
    assert js_search(pattern, text, flags) is expected


@pytest.mark.parametrize(
    "pattern",
    [
        r"(?P<n>a)",
        r"(?P=n)",
        r"(?>a)",
        r"a*+",
        r"a++",
        r"a?+",
        r"(?i)abc",
        r"(?#note)",
        r"(",
        r"[a",
        r"a{3,1}",
        r"[z-a]",
        "\\",
        r"(?<a>x)(?<a>y)",  # duplicate group name
        r"\k<b>(?<a>x)",  # with named groups, \k must name one
        r"(?<a>x)\k",
        r"^*a",  # nothing to repeat: a quantifier after an assertion
        r"a\b+",
        r"(?<=a)*b",
    ],
)
def test_patterns_javascript_rejects(pattern: str) -> None:
    with pytest.raises(JSRegexError) as caught:
        compile_js(pattern)
    assert str(caught.value).startswith(f"Invalid regex: {pattern}")


def test_leading_inline_flags_are_stripped_only_at_the_start() -> None:
    assert strip_leading_flags("(?i)refund") == "refund"
    assert strip_leading_flags("(?ims)x") == "x"
    assert strip_leading_flags("a(?i)b") == "a(?i)b"


def test_a_pattern_that_runs_too_long_times_out() -> None:
    with pytest.raises(TimeoutError):
        js_search(r"(x+x+)+y", "x" * 5000, timeout=0.01)


_ATOMS = st.sampled_from(["a", "b", "c", r"\d", r"\w", ".", "[a-c]", "[^b]", r"\.", "0", "(a|b)", "(?:ab)"])
_QUANT = st.sampled_from(["", "", "*", "+", "?", "{2}", "{1,2}", "*?"])
_PATTERNS = st.lists(st.tuples(_ATOMS, _QUANT), min_size=1, max_size=5).map(
    lambda parts: "".join(atom + quant for atom, quant in parts)
)
_TEXT = st.text(alphabet="abc01.x_-", max_size=12)


@given(pattern=_PATTERNS, text=_TEXT, anchored=st.booleans())
def test_agrees_with_python_on_plain_ascii(pattern: str, text: str, anchored: bool) -> None:
    """Without line terminators or non-ASCII text, JavaScript and Python regexes mean the same."""
    if anchored:
        pattern = f"^{pattern}$"
    assert js_search(pattern, text) is (re.search(pattern, text) is not None)


@given(st.text(max_size=8))
def test_escaped_text_matches_itself(literal: str) -> None:
    escaped = "".join("\\" + ch if ch in r"\^$.|?*+()[]{}/" else ch for ch in literal)
    found = compile_js(escaped).search(f"<{literal}>")
    assert found is not None
    assert found.group() == literal
