"""`-k PATTERN`: pick cases by case-insensitive substrings of their node id (`file::name`), as pytest does.

Grammar: `expr := term ("or" term)*`, `term := factor ("and" factor)*`, `factor := "not" factor | "(" expr ")"
| WORD`. A word is a run of characters other than blanks and parentheses, or a quoted string ('...' or "...")
for names with blanks. Parsed by hand into a predicate; nothing is evaluated.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from toolproof.model.envelope import CaseEnvelope

C = TypeVar("C", bound=CaseEnvelope)
Predicate = Callable[[str], bool]
_TOKEN = re.compile(r"""\s*(?:([()])|'([^']*)'|"([^"]*)"|([^\s()'"][^\s()]*))""")


class SelectionError(ValueError):
    """A `-k` pattern that does not parse."""


def _tokens(pattern: str) -> list[tuple[str, str]]:
    """(kind, text) pairs: kind is the punctuation or keyword itself, or "word"."""
    tokens: list[tuple[str, str]] = []
    position = 0
    while pattern[position:].strip():
        match = _TOKEN.match(pattern, position)
        if match is None:
            raise SelectionError(f"-k {pattern!r}: unterminated quote at column {position + 1}")
        paren, single, double, bare = match.groups()
        if paren is not None:
            tokens.append((paren, paren))
        elif bare is not None and bare.lower() in ("and", "or", "not"):
            tokens.append((bare.lower(), bare))
        else:
            tokens.append(("word", next(text for text in (single, double, bare) if text is not None)))
        position = match.end()
    return tokens


class _Parser:
    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.tokens = _tokens(pattern)
        self.at = 0

    def fail(self, expected: str) -> SelectionError:
        found = repr(self.tokens[self.at][1]) if self.at < len(self.tokens) else "end of pattern"
        return SelectionError(f"-k {self.pattern!r}: expected {expected}, found {found}")

    def accept(self, kind: str) -> bool:
        if self.at < len(self.tokens) and self.tokens[self.at][0] == kind:
            self.at += 1
            return True
        return False

    def parse(self) -> Predicate:
        predicate = self.expr()
        if self.at < len(self.tokens):
            raise self.fail("'and', 'or' or the end")
        return predicate

    def expr(self) -> Predicate:
        alternatives = [self.term()]
        while self.accept("or"):
            alternatives.append(self.term())
        return alternatives[0] if len(alternatives) == 1 else lambda text: any(p(text) for p in alternatives)

    def term(self) -> Predicate:
        parts = [self.factor()]
        while self.accept("and"):
            parts.append(self.factor())
        return parts[0] if len(parts) == 1 else lambda text: all(p(text) for p in parts)

    def factor(self) -> Predicate:
        if self.accept("not"):
            inner = self.factor()
            return lambda text: not inner(text)
        if self.accept("("):
            inner = self.expr()
            if not self.accept(")"):
                raise self.fail("')'")
            return inner
        if self.at < len(self.tokens) and self.tokens[self.at][0] == "word":
            word = self.tokens[self.at][1].lower()
            self.at += 1
            return lambda text: word in text
        raise self.fail("a word, 'not' or '('")


def select(cases: Sequence[C], pattern: str | None) -> list[C]:
    """The cases whose node id matches `pattern` (all of them when it is None or blank).

    Raises SelectionError for a pattern that does not parse.
    """
    if pattern is None or not pattern.strip():
        return list(cases)
    matches = _Parser(pattern).parse()
    return [case for case in cases if matches(case.node_id.lower())]
