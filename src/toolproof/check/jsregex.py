"""JavaScript regular expressions (without the `u` flag), translated for Python's `regex` module.

Where the two engines differ, the translation keeps JavaScript's meaning:
- `\\d`, `\\w`, `\\b` (and `\\D`, `\\W`, `\\B`) are ASCII-only; `\\s` is JavaScript's whitespace set;
- `.` excludes `\\n`, `\\r`, U+2028 and U+2029; `$` matches only at the very end (with `m`, before any line
  terminator too) and `^` only at the start (with `m`, after any line terminator);
- named groups are `(?<n>…)` and `\\k<n>`; `(?P<n>…)`, `(?P=n)`, atomic groups `(?>…)`, inline flags
  `(?i)`, comments `(?#…)` and possessive quantifiers (`a*+`) are errors;
- `[]` matches nothing and `[^]` any character; `[` inside a class and `{` that does not start a quantifier
  are literal; an identity escape of a letter (`\\a`, `\\p`, `\\A`) is that letter;
- a range with a class escape at one end (`[\\d-z]`) makes `-` literal, as JavaScript's Annex B does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import regex

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
_WORD_CHAR = "(?-i:[0-9A-Z_a-z])"
_BOUNDARY = f"(?:(?<={_WORD_CHAR})(?!{_WORD_CHAR})|(?<!{_WORD_CHAR})(?={_WORD_CHAR}))"
_NOT_BOUNDARY = f"(?:(?<={_WORD_CHAR})(?={_WORD_CHAR})|(?<!{_WORD_CHAR})(?!{_WORD_CHAR}))"
_LEADING_FLAGS = re.compile(r"^\(\?[imsx]+\)")
_QUANTIFIER = re.compile(r"\{(\d+)(,(\d*))?\}")
_GROUP_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_HEX2 = re.compile(r"[0-9A-Fa-f]{2}")
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")

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


@dataclass
class _Translator:
    pattern: str
    multiline: bool
    dotall: bool
    pos: int = 0

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
            piece, is_quantifier = self._token(char, quantified)
            if is_quantifier and quantified and piece == "+":
                raise self.fail("nothing to repeat (possessive quantifiers do not exist in JavaScript)")
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
            return (f"(?={_LINE_END}|\\Z)" if self.multiline else "\\Z"), False
        if char == "^":
            return ("(?<![^\\n\\r\\u2028\\u2029])" if self.multiline else "\\A"), False
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
        return char, False

    def _escape(self) -> str:
        """An escape outside a class; `self.pos` is at the backslash."""
        self.pos += 1
        if self.pos >= len(self.pattern):
            raise self.fail("\\ at end of pattern")
        char = self.pattern[self.pos]
        self.pos += 1
        if char in _CLASS_ESCAPES:
            ranges = _CLASS_ESCAPES[char]
            return f"(?-i:[{_ranges(ranges)}])" if char in "dDwW" else f"[{_ranges(ranges)}]"
        if char == "b":
            return _BOUNDARY
        if char == "B":
            return _NOT_BOUNDARY
        if char.isdigit() and char != "0":
            digits = char
            while self.peek().isdigit():
                digits += self.peek()
                self.pos += 1
            return f"(?:\\{digits})"
        if char == "k" and self.peek() == "<":
            end = self.pattern.find(">", self.pos)
            name = self.pattern[self.pos + 1 : end] if end > 0 else ""
            if not _GROUP_NAME.fullmatch(name):
                raise self.fail("invalid named reference")
            self.pos = end + 1
            return f"(?P={name})"
        code = self._escaped_code(char)
        return _char(code)

    def _escaped_code(self, char: str) -> int:
        """The code point an escape stands for (after the backslash and `char` were read)."""
        if char in _CONTROL:
            return _CONTROL[char]
        if char == "0" and not self.peek().isdigit():
            return 0
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
        """The opening of a group; `self.pos` is at the parenthesis."""
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
        body = "".join(_ranges(ranges) for ranges in items)
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
        if escaped.isdigit() and escaped != "0":
            return ord(escaped)  # no backreferences in a class: an identity escape
        return self._escaped_code(escaped)


def _atom_ranges(atom: int | Ranges) -> Ranges:
    return ((atom, atom),) if isinstance(atom, int) else atom


def translate(pattern: str, flags: str = "") -> str:
    """The `regex`-module pattern meaning what `new RegExp(pattern, flags)` means; raises `JSRegexError`."""
    unknown = set(flags) - set("gimsy")
    if unknown:
        raise JSRegexError(pattern, f"invalid flags {''.join(sorted(unknown))!r}")
    return _Translator(pattern, multiline="m" in flags, dotall="s" in flags).translate()


@lru_cache(maxsize=2048)
def compile_js(pattern: str, flags: str = "") -> Any:
    """The compiled translation (a `regex.Pattern`); raises `JSRegexError` if JavaScript rejects it."""
    translated = translate(pattern, flags)
    try:
        return regex.compile(translated, regex.IGNORECASE if "i" in flags else 0)
    except regex.error as error:
        raise JSRegexError(pattern, str(error)) from None


def js_search(pattern: str, text: str, flags: str = "", timeout: float = REGEX_TIMEOUT_S) -> bool:
    """`new RegExp(pattern, flags).test(text)`; raises `JSRegexError`, or `TimeoutError` after `timeout`."""
    return compile_js(pattern, flags).search(text, timeout=timeout) is not None
