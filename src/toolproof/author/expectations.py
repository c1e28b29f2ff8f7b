"""Expectations drawn from live answers: what stayed the same over two calls, volatile values left out.

Pure: from the observations of one request made twice (each on a fresh server), the `expect:` mapping of a
case that passes against that server. A JSON answer gets `json_path` checks on its stable leaves, shallow
ones first; other text gets `contains` checks on its stable lines; an answer with nothing stable to check
gets `not_empty`. A value counts as volatile when it differs between the two calls or matches a built-in
mask (a date, a time, a UUID, a hex id, a temporary path). Nothing that holds a secret is asserted (it would
be written into the suite).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence
from typing import Any

from toolproof.author.diff import as_tree
from toolproof.author.masks import is_volatile
from toolproof.core.dotpath import Segment, render_path
from toolproof.core.gofmt import is_empty_result
from toolproof.model.observation import Observation

MAX_PATHS = 8
MAX_LINES = 3
MIN_LINE_CHARS = 3
MAX_VALUE_CHARS = 200
_ADDRESSABLE_KEY = re.compile(r"[^.\[\]\s]+")


def _leaves(value: Any) -> Iterator[tuple[tuple[Segment, ...], Any]]:
    """Scalar leaves in breadth-first order (shallow first), at paths json_path can address."""
    queue: list[tuple[tuple[Segment, ...], Any]] = [((), value)]
    while queue:
        path, node = queue.pop(0)
        if isinstance(node, dict):
            keys = [key for key in node if _ADDRESSABLE_KEY.fullmatch(key)]
            queue.extend(((*path, key), node[key]) for key in keys)
        elif isinstance(node, list):
            queue.extend(((*path, index), item) for index, item in enumerate(node))
        elif path:
            yield path, node


def _safe(text: str, secrets: Collection[str]) -> bool:
    return len(text) <= MAX_VALUE_CHARS and not is_volatile(text) and not any(s in text for s in secrets)


def _stable_scalar(value: Any, secrets: Collection[str]) -> bool:
    if value is None or isinstance(value, float):
        return False  # json_path compares null as Go prints it, floats by their exact decimal: left out
    return _safe(value, secrets) if isinstance(value, str) else True


def _lookup(document: Any, path: tuple[Segment, ...]) -> Any:
    node = document
    for segment in path:
        if isinstance(segment, int):
            if not isinstance(node, list) or segment >= len(node):
                return _MISSING
            node = node[segment]
        else:
            if not isinstance(node, dict) or segment not in node:
                return _MISSING
            node = node[segment]
    return node


_MISSING = object()


def json_paths(first: str, second: str, secrets: Collection[str] = ()) -> dict[str, Any]:
    """`json_path` checks for the leaves of a JSON answer that both calls gave alike."""
    document, again = as_tree(first), as_tree(second)
    if document is None or again is None:
        return {}
    paths: dict[str, Any] = {}
    for path, value in _leaves(document):
        other = _lookup(again, path)
        alike = other is not _MISSING and other == value and type(other) is type(value)
        if not alike or not _stable_scalar(value, secrets):
            continue
        paths[render_path(path)] = value
        if len(paths) == MAX_PATHS:
            break
    return paths


def stable_lines(first: str, second: str, secrets: Collection[str] = ()) -> list[str]:
    """The first lines of a text answer that both calls gave, without volatile values or secrets."""
    seen = set(second.splitlines())
    lines = dict.fromkeys(line.strip() for line in first.splitlines() if line in seen)
    return [line for line in lines if len(line) >= MIN_LINE_CHARS and _safe(line, secrets)][:MAX_LINES]


def expectations(
    observations: Sequence[Observation], *, tool: bool, secrets: Collection[str] = ()
) -> dict[str, Any]:
    """The `expect:` mapping for an answer observed twice (`tool`: a tools/call, which can be an error);
    no expected value contains one of the `secrets`."""
    first, second = observations[0], observations[-1]
    expect: dict[str, Any] = {}
    if tool:
        expect["is_error" if first.is_error else "not_error"] = True
    paths = json_paths(first.text, second.text, secrets)
    if paths:
        expect["json_path"] = paths
        return expect
    lines = [] if as_tree(first.text) is not None else stable_lines(first.text, second.text, secrets)
    if lines:
        expect["contains"] = lines
    elif not is_empty_result(first.text) and not is_empty_result(second.text):
        expect["not_empty"] = True
    return expect
