"""What the JSON checks of one scope read: `Answer`, the response body or the reply parsed as JSON, once."""

from __future__ import annotations

import json
from typing import Any

from toolproof.core.jsonpath import jsonpath_values
from toolproof.model.transcript import Turn

SHOWN_CHARS = 300


def excerpt(text: str) -> str:
    """`text` quoted, cut to SHOWN_CHARS with a count of what was left out."""
    if len(text) <= SHOWN_CHARS:
        return json.dumps(text, ensure_ascii=False)
    return (
        json.dumps(text[:SHOWN_CHARS], ensure_ascii=False) + f" … ({len(text) - SHOWN_CHARS} more characters)"
    )


class NoDocument(ValueError):
    """The response has no body and the reply is not JSON."""


class Answer:
    """What the JSON checks of one scope read: the response body when there is one, else the reply parsed
    as JSON (surrounding whitespace allowed, code fences not). Parsed once; JSONPath results are kept."""

    def __init__(self, turn: Turn) -> None:
        self.turn = turn
        self._document: tuple[Any, NoDocument | None] | None = None
        self._selected: dict[str, list[Any]] = {}

    def document(self) -> Any:
        """The JSON document; raises `NoDocument`."""
        if self._document is None:
            self._document = _parse(self.turn)
        value, problem = self._document
        if problem is not None:
            raise problem
        return value

    def select(self, path: str) -> list[Any]:
        """The values `path` selects in the document; raises `NoDocument` or `PathSyntaxError`."""
        if path not in self._selected:
            self._selected[path] = jsonpath_values(path, self.document())
        return self._selected[path]


def _parse(turn: Turn) -> tuple[Any, NoDocument | None]:
    if turn.body is not None:
        return turn.body, None
    try:
        return json.loads(turn.reply, parse_constant=_no_constant), None
    except ValueError as error:
        return None, NoDocument(f"the response is not valid JSON ({error}): {excerpt(turn.reply)}")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
