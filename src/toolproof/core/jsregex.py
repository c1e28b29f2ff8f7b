"""JavaScript regular expressions (without the `u` flag), translated for Python's `regex` module.

Where the two engines differ, the translation keeps JavaScript's meaning:
- `\\d`, `\\w`, `\\b` (and `\\D`, `\\W`, `\\B`) are ASCII-only; `\\s` is JavaScript's whitespace set;
- `.` excludes `\\n`, `\\r`, U+2028 and U+2029; `$` matches only at the very end (with `m`, before any line
  terminator too) and `^` only at the start (with `m`, after any line terminator);
- named groups are `(?<n>…)` and `\\k<n>`; `(?P<n>…)`, `(?P=n)`, atomic groups `(?>…)`, inline flags
  `(?i)`, comments `(?#…)`, possessive quantifiers (`a*+`), a name given to two groups, and a quantifier
  after `^`, `$`, `\\b`, `\\B` or a lookbehind are errors (a quantified lookahead is not, as in Annex B);
- a backreference to a group that has not matched (it did not take part, or comes later) matches the empty
  string; `\\N` beyond the number of groups is an octal escape (`\\1` is U+0001 in a pattern without groups,
  as in a class), and `\\8`, `\\9` are the digits; without named groups, `\\k` is the letter `k`;
- with the `i` flag, characters match when JavaScript's simple upper-case mapping makes them equal, which
  never maps a non-ASCII character to an ASCII one: `/k/i` does not match the Kelvin sign U+212A, nor `/s/i`
  the long s U+017F (Python's case folding matches both); a backreference still compares with Python's
  case folding;
- `[]` matches nothing and `[^]` any character; `[` inside a class and `{` that does not start a quantifier
  are literal; an identity escape of a letter (`\\a`, `\\p`, `\\A`) is that letter;
- a range with a class escape at one end (`[\\d-z]`) makes `-` literal, as JavaScript's Annex B does.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

REGEX_TIMEOUT_S = 1.0

_DIGIT = ((0x30, 0x39),)
_WORD = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
_SPACE = (
    (0x09, 0x0D),
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
)
_LINE_END = "[\\n\\r\\u2028\\u2029]"
_WORD_CHAR = "[0-9A-Z_a-z]"
_BOUNDARY = f"(?:(?<={_WORD_CHAR})(?!{_WORD_CHAR})|(?<!{_WORD_CHAR})(?={_WORD_CHAR}))"
_NOT_BOUNDARY = f"(?:(?<={_WORD_CHAR})(?={_WORD_CHAR})|(?<!{_WORD_CHAR})(?!{_WORD_CHAR}))"
_LEADING_FLAGS = re.compile(r"^\(\?[imsx]+\)")
_QUANTIFIER = re.compile(r"\{(\d+)(,(\d*))?\}")
_GROUP_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_HEX2 = re.compile(r"[0-9A-Fa-f]{2}")
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")
_LEGACY_OCTAL = re.compile(r"[0-3][0-7]{0,2}|[4-7][0-7]?")
_DECIMAL = re.compile(r"[0-9]+")

Ranges = tuple[tuple[int, int], ...]


class JSRegexError(ValueError):
    """A pattern JavaScript rejects (or this translation cannot express)."""

    def __init__(self, pattern: str, reason: str) -> None:
        super().__init__(f"Invalid regex: {pattern} ({reason})")
        self.pattern = pattern
        self.reason = reason


def strip_leading_flags(pattern: str) -> str:
    """`pattern` without a leading inline-flag group such as `(?i)`, as MCPLab compiles response regexes."""
    return _LEADING_FLAGS.sub("", pattern, count=1)


def _complement(ranges: Ranges) -> Ranges:
    result: list[tuple[int, int]] = []
    start = 0
    for low, high in sorted(ranges):
        if low > start:
            result.append((start, low - 1))
        start = max(start, high + 1)
    if start <= 0x10FFFF:
        result.append((start, 0x10FFFF))
    return tuple(result)


_CLASS_ESCAPES: dict[str, Ranges] = {
    "d": _DIGIT,
    "D": _complement(_DIGIT),
    "w": _WORD,
    "W": _complement(_WORD),
    "s": _SPACE,
    "S": _complement(_SPACE),
}
_CONTROL = {"n": 0x0A, "r": 0x0D, "t": 0x09, "v": 0x0B, "f": 0x0C}


def _char(code: int) -> str:
    """One code point written so that it is literal anywhere in a `regex` pattern."""
    text = chr(code)
    if text.isalnum() or text == "_":
        return text
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _ranges(ranges: Ranges) -> str:
    return "".join(_char(low) if low == high else f"{_char(low)}-{_char(high)}" for low, high in ranges)


def _canonical(code: int) -> int:
    """JavaScript's Canonicalize without the `u` flag: the simple upper-case mapping of a UTF-16 code unit,
    unless it takes several characters or maps a non-ASCII character to an ASCII one."""
    upper = chr(code).upper()
    if len(upper) != 1 or (code >= 128 and ord(upper) < 128):
        return code
    return ord(upper)


@lru_cache(maxsize=1)
def _case_groups() -> dict[int, tuple[int, ...]]:
    """Every code unit that matches others under the `i` flag, with all of them (itself included)."""
    groups: dict[int, list[int]] = {}
    for code in range(0x10000):
        groups.setdefault(_canonical(code), []).append(code)
    return {code: tuple(group) for group in groups.values() if len(group) > 1 for code in group}


def _case_closed(ranges: Iterable[tuple[int, int]]) -> Ranges:
    """`ranges` and every code unit that matches one of them under the `i` flag."""
    merged: list[tuple[int, int]] = []
    for low, high in sorted(ranges):
        if merged and low <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    starts = [low for low, _ in merged]

    def inside(code: int) -> bool:
        at = bisect.bisect_right(starts, code) - 1
        return at >= 0 and merged[at][1] >= code

    extra = {
        partner
        for code, group in _case_groups().items()
        if inside(code)
        for partner in group
        if not inside(partner)
    }
    return (*merged, *((code, code) for code in sorted(extra)))


def _capture_groups(pattern: str) -> tuple[int, list[str]]:
    """How many capturing groups `pattern` has, and their names in order (read before translating, as a
    backreference may come before its group)."""
    count, names, index, in_class = 0, [], 0, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class or char == "[":
            in_class = char != "]" if in_class else True
        elif char == "(" and not pattern.startswith("(?", index):
            count += 1
        elif pattern.startswith("(?<", index) and pattern[index + 3 : index + 4] not in ("=", "!"):
            count += 1
            names.append(pattern[index + 3 : pattern.find(">", index)])
        index += 1
    return count, names


@dataclass
class _Translator:
    pattern: str
    multiline: bool
    dotall: bool
    ignore_case: bool
    groups: int = 0
    names: frozenset[str] = frozenset()
    pos: int = 0
    opened: list[str] = field(default_factory=list)  # the openings of the groups not yet closed
    assertion: bool = False  # the last token was an assertion JavaScript does not let a quantifier follow

    def __post_init__(self) -> None:
        self.groups, names = _capture_groups(self.pattern)
        self.names = frozenset(names)
        if len(self.names) < len(names):
            raise self.fail("duplicate capture group name")

    def literal(self, code: int) -> str:
        """One character as a pattern, with the others it matches under the `i` flag."""
        group = _case_groups().get(code) if self.ignore_case else None
        return f"[{_ranges(tuple((each, each) for each in group))}]" if group else _char(code)

    def backreference(self, group: str) -> str:
        """A backreference that matches the empty string while its group has not matched, as in JavaScript."""
        reference = f"(?({group})\\{group})" if group.isdigit() else f"(?({group})(?P={group}))"
        return f"(?i:{reference})" if self.ignore_case else reference

    def fail(self, reason: str) -> JSRegexError:
        return JSRegexError(self.pattern, reason)

    def peek(self, offset: int = 0) -> str:
        index = self.pos + offset
        return self.pattern[index] if index < len(self.pattern) else ""

    def translate(self) -> str:
        out: list[str] = []
        quantified = False  # the last token was a quantifier (so a following `+` would be possessive)
        while self.pos < len(self.pattern):
            char = self.pattern[self.pos]
            after_assertion, self.assertion = self.assertion, False
            piece, is_quantifier = self._token(char, quantified)
            if is_quantifier and quantified and piece == "+":
                raise self.fail("nothing to repeat (possessive quantifiers do not exist in JavaScript)")
            if is_quantifier and after_assertion:
                raise self.fail("nothing to repeat (a quantifier after an assertion)")
            quantified = is_quantifier
            out.append(piece)
        return "".join(out)

    def _token(self, char: str, after_quantifier: bool) -> tuple[str, bool]:
        if char == "\\":
            return self._escape(), False
        if char == "[":
            return self._class(), False
        if char == "(":
            return self._group(), False
        self.pos += 1
        if char == ".":
            return ("(?s:.)" if self.dotall else "[^\\n\\r\\u2028\\u2029]"), False
        if char == "$":
            self.assertion = True
            return (f"(?={_LINE_END}|\\Z)" if self.multiline else "\\Z"), False
        if char == "^":
            self.assertion = True
            return ("(?<![^\\n\\r\\u2028\\u2029])" if self.multiline else "\\A"), False
        if char == ")":
            self.assertion = bool(self.opened) and self.opened.pop() in ("(?<=", "(?<!")
            return char, False
        if char in "*+":
            return char, True
        if char == "?":
            return char, not after_quantifier  # `?` after a quantifier makes it lazy
        if char == "{":
            match = _QUANTIFIER.match(self.pattern, self.pos - 1)
            if match is None:
                return "\\{", False
            if match[3] and int(match[3]) < int(match[1]):
                raise self.fail("numbers out of order in {} quantifier")
            self.pos = match.end()
            return match[0], True
        if char == "}":
            return "\\}", False
        return (self.literal(ord(char)) if self.ignore_case and ord(char) in _case_groups() else char), False

    def _escape(self) -> str:
        """An escape outside a class; `self.pos` is at the backslash."""
        self.pos += 1
        if self.pos >= len(self.pattern):
            raise self.fail("\\ at end of pattern")
        char = self.pattern[self.pos]
        self.pos += 1
        if char in _CLASS_ESCAPES:
            return f"[{_ranges(_CLASS_ESCAPES[char])}]"
        if char in "bB":
            self.assertion = True
            return _BOUNDARY if char == "b" else _NOT_BOUNDARY
        if char in "123456789":
            number = _DECIMAL.match(self.pattern, self.pos - 1)
            assert number is not None
            if int(number[0]) <= self.groups:
                self.pos = number.end()
                return self.backreference(str(int(number[0])))
        if char == "k" and self.names:
            return self._named_reference()
        return self.literal(self._escaped_code(char))

    def _named_reference(self) -> str:
        """`\\k<name>` (after the `k`), in a pattern that has named groups."""
        end = self.pattern.find(">", self.pos)
        name = self.pattern[self.pos + 1 : end] if self.peek() == "<" and end > 0 else ""
        if name not in self.names:
            raise self.fail("invalid named reference")
        self.pos = end + 1
        return self.backreference(name)

    def _escaped_code(self, char: str) -> int:
        """The code point an escape stands for (after the backslash and `char` were read)."""
        if char in _CONTROL:
            return _CONTROL[char]
        if char in "01234567":  # a legacy octal escape: up to three digits, at most 0o377
            octal = _LEGACY_OCTAL.match(self.pattern, self.pos - 1)
            assert octal is not None
            self.pos = octal.end()
            return int(octal[0], 8)
        if char == "c" and self.peek().isascii() and self.peek().isalpha():
            self.pos += 1
            return ord(self.pattern[self.pos - 1]) % 32
        if char == "c":
            self.pos -= 1  # `\c` without a letter is a literal backslash; the `c` is read again
            return ord("\\")
        if char == "x" and _HEX2.match(self.pattern, self.pos):
            self.pos += 2
            return int(self.pattern[self.pos - 2 : self.pos], 16)
        if char == "u" and _HEX4.match(self.pattern, self.pos):
            self.pos += 4
            return int(self.pattern[self.pos - 4 : self.pos], 16)
        return ord(char)  # an identity escape: the character itself

    def _group(self) -> str:
        """The opening of a group, also kept in `opened`; `self.pos` is at the parenthesis."""
        opening = self._opening()
        self.opened.append(opening)
        return opening

    def _opening(self) -> str:
        rest = self.pattern[self.pos :]
        for opening in ("(?:", "(?=", "(?!", "(?<=", "(?<!"):
            if rest.startswith(opening):
                self.pos += len(opening)
                return opening
        if rest.startswith("(?<"):
            end = rest.find(">")
            name = rest[3:end] if end > 0 else ""
            if not _GROUP_NAME.fullmatch(name):
                raise self.fail("invalid capture group name")
            self.pos += end + 1
            return f"(?P<{name}>"
        if rest.startswith("(?"):
            raise self.fail(f"invalid group {rest[:4]!r}")
        self.pos += 1
        return "("

    def _class(self) -> str:
        """A character class; `self.pos` is at the opening bracket."""
        self.pos += 1
        negated = self.peek() == "^"
        if negated:
            self.pos += 1
        items: list[Ranges] = []
        while True:
            if self.pos >= len(self.pattern):
                raise self.fail("unterminated character class")
            char = self.pattern[self.pos]
            if char == "]":
                self.pos += 1
                break
            low = self._class_atom()
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.pos += 1
                high = self._class_atom()
                if isinstance(low, int) and isinstance(high, int):
                    if high < low:
                        raise self.fail("range out of order in character class")
                    items.append(((low, high),))
                    continue
                items.extend([_atom_ranges(low), ((ord("-"), ord("-")),), _atom_ranges(high)])
                continue
            items.append(_atom_ranges(low))
        if not items:
            return "(?s:.)" if negated else "(?!)"
        members = [pair for ranges in items for pair in ranges]
        body = _ranges(_case_closed(members) if self.ignore_case else tuple(members))
        return f"[^{body}]" if negated else f"[{body}]"

    def _class_atom(self) -> int | Ranges:
        """One class member: a code point, or the ranges of a class escape."""
        char = self.pattern[self.pos]
        self.pos += 1
        if char != "\\":
            return ord(char)
        if self.pos >= len(self.pattern):
            raise self.fail("\\ at end of pattern")
        escaped = self.pattern[self.pos]
        self.pos += 1
        if escaped in _CLASS_ESCAPES:
            return _CLASS_ESCAPES[escaped]
        if escaped == "b":
            return 0x08
        return self._escaped_code(escaped)  # no backreferences in a class: digits are octal escapes


def _atom_ranges(atom: int | Ranges) -> Ranges:
    return ((atom, atom),) if isinstance(atom, int) else atom


def translate(pattern: str, flags: str = "") -> str:
    """The `regex`-module pattern meaning what `new RegExp(pattern, flags)` means; raises `JSRegexError`."""
    unknown = set(flags) - set("gimsy")
    if unknown:
        raise JSRegexError(pattern, f"invalid flags {''.join(sorted(unknown))!r}")
    return _Translator(
        pattern, multiline="m" in flags, dotall="s" in flags, ignore_case="i" in flags
    ).translate()


@lru_cache(maxsize=2048)
def compile_js(pattern: str, flags: str = "") -> Any:
    """The compiled translation (a `regex.Pattern`); raises `JSRegexError` if JavaScript rejects it."""
    import regex  # loaded only when a JavaScript pattern is matched

    translated = translate(pattern, flags)
    try:
        return regex.compile(translated)
    except regex.error as error:
        raise JSRegexError(pattern, str(error)) from None


def js_search(pattern: str, text: str, flags: str = "", timeout: float = REGEX_TIMEOUT_S) -> bool:
    """`new RegExp(pattern, flags).test(text)`; raises `JSRegexError`, or `TimeoutError` after `timeout`."""
    return compile_js(pattern, flags).search(text, timeout=timeout) is not None
