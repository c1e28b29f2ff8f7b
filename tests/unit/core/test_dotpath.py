"""mcp-assert's path language, reading JSON out of text, and setup captures."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolproof.core.dotpath import (
    NotJSONError,
    PathError,
    capture_value,
    lookup,
    parse_json,
    parse_path,
    read_json,
    render_path,
)

DOC = {"a": {"b": 7, "l": [1, [2, 3], {"c": "deep"}]}, "s": "str", "key with space": {"é": True}, "n": None}


@pytest.mark.parametrize(
    ("path", "segments"),
    [
        ("$", ()),
        ("$.a", ("a",)),
        ("$.a.b[0]", ("a", "b", 0)),
        ("$[1][0]", (1, 0)),
        ("$[0].a", (0, "a")),
        ("$.a[2].b", ("a", 2, "b")),
        ("$.a[10][2]", ("a", 10, 2)),
        ("a.b", ("a", "b")),  # mcp-assert reads a path without `$.` from the root too
        ("$.key with space.é", ("key with space", "é")),
        ("$.a.0", ("a", "0")),  # a dotted number is a key, not an index
    ],
)
def test_parse_path(path: str, segments: tuple[Any, ...]) -> None:
    assert parse_path(path) == segments


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("$.a[x]", 'bad path "$.a[x]": index [x] is not a non-negative integer'),
        ("$.a[-1]", 'bad path "$.a[-1]": index [-1] is not a non-negative integer'),
        ("$.a[0", 'bad path "$.a[0": cannot read "a[0" (write key or key[0])'),
        ("$.a[0]b", 'bad path "$.a[0]b": cannot read "a[0]b" (write key or key[0])'),
        ("$..a", 'bad path "$..a": empty key (write $.key, $.key[0] or $[0])'),
        ("$.a.", 'bad path "$.a.": empty key (write $.key, $.key[0] or $[0])'),
        ("", 'bad path "": empty key (write $.key, $.key[0] or $[0])'),
        ("$.[0]", 'bad path "$.[0]": empty key (write $.key, $.key[0] or $[0])'),
    ],
)
def test_bad_syntax_is_a_path_error(path: str, message: str) -> None:
    with pytest.raises(PathError) as caught:
        parse_path(path)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("$", DOC),
        ("$.a.b", 7),
        ("a.b", 7),
        ("$.a.l[0]", 1),
        ("$.a.l[1][1]", 3),
        ("$.a.l[2].c", "deep"),
        ("$.key with space.é", True),
        ("$.n", None),
    ],
)
def test_lookup_finds_values(path: str, value: Any) -> None:
    assert lookup(DOC, path) == value


def test_lookup_indexes_a_top_level_array() -> None:
    # mcp-assert 0.12.3 fails `$[1][0]` ("expected object at "$""); semantics.md asks for the index
    assert lookup([[1, 2], [3, 4]], "$[1][0]") == 3


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("$.a.c", '$.a.c: no key "c" in the object at $.a (keys: "b", "l")'),
        ("$.a.l[5]", "$.a.l[5]: index 5 is out of range, the array at $.a.l has 3 items"),
        ("$.a.l[1][2]", "$.a.l[1][2]: index 2 is out of range, the array at $.a.l[1] has 2 items"),
        ("$.s.x", '$.s.x: $.s is a string ("str"), not an object'),
        ("$.a.b[0]", "$.a.b[0]: $.a.b is a number (7), not an array"),
        ("$[0]", "$[0]: $ is an object, not an array"),
        ("$.a.l.x", "$.a.l.x: $.a.l is an array, not an object"),
        ("$.n.x", "$.n.x: $.n is null, not an object"),
    ],
)
def test_lookup_failures_say_where_the_walk_stopped(path: str, message: str) -> None:
    with pytest.raises(PathError) as caught:
        lookup(DOC, path)
    assert str(caught.value) == message


def test_lookup_of_an_empty_object_lists_no_keys() -> None:
    with pytest.raises(PathError, match=r"\(keys: none\)"):
        lookup({}, "$.a")


def _walks(value: Any) -> list[tuple[tuple[str | int, ...], Any]]:
    """Every (path, node) of a JSON value."""
    found: list[tuple[tuple[str | int, ...], Any]] = [((), value)]
    if isinstance(value, dict):
        for key, item in value.items():
            found += [((key, *path), node) for path, node in _walks(item)]
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += [((index, *path), node) for path, node in _walks(item)]
    return found


KEY_CHARS = st.characters(blacklist_characters=".[]", blacklist_categories=("Cs",))
KEYS = st.text(KEY_CHARS, min_size=1, max_size=6)
DOCS = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(KEYS, children, max_size=3),
    max_leaves=10,
)


@given(DOCS)
def test_lookup_reaches_every_node_by_its_rendered_path(document: Any) -> None:
    for segments, node in _walks(document):
        path = render_path(segments)
        assert parse_path(path) == segments
        assert lookup(document, path) == node


def test_parse_json_accepts_what_go_accepts() -> None:
    assert parse_json(' {"a": [1, 2.5, "é"]} ') == {"a": [1, 2.5, "é"]}
    for text in ("NaN", '{"a": Infinity}', '{"a": 1e400}', "", "{bad", "1 2"):
        with pytest.raises(NotJSONError):
            parse_json(text)


def test_read_json_prefers_the_whole_text() -> None:
    assert read_json('{"a":\n 5}') == ({"a": 5}, 0)


def test_read_json_falls_back_to_the_first_line_that_is_json() -> None:
    # seen in mcp-assert 0.12.3: json_path reads `{"a": 5}` here and passes `$.a: 5`
    assert read_json('head line\n{"a": 5}\n{"a": 6}') == ({"a": 5}, 2)
    assert read_json('x\r\n  {"a": 5}  \r\n') == ({"a": 5}, 2)
    # seen: any JSON value counts, so a scalar line comes first and `$.a` then fails there too
    assert read_json('x\n42\n{"a": 5}') == (42, 2)
    assert read_json('{"a": 5}\ntrailing') == ({"a": 5}, 1)


def test_read_json_error_names_the_whole_text_error() -> None:
    with pytest.raises(NotJSONError) as caught:
        read_json("x\ny")
    assert str(caught.value) == (
        "the text is not JSON and none of its lines is (Expecting value: line 1 column 1 (char 0))"
    )
    with pytest.raises(NotJSONError, match=r"^the text is not JSON \(Expecting value"):
        read_json("")


@pytest.mark.parametrize(
    ("text", "path", "captured"),
    [
        ('{"id": "abc-1"}', "$.id", "abc-1"),
        ('{"id": "é \\u00e9"}', "$.id", "é é"),
        ('{"a": 1234567}', "$.a", "1234567"),
        ('{"a": 2.0}', "$.a", "2"),
        ('{"a": 1.5}', "$.a", "1.5"),
        ('{"a": 1e-7}', "$.a", "1e-07"),  # seen in mcp-assert 0.12.3: "1e-07"
        ('{"a": 1234567.5}', "$.a", "1234567.5"),  # mcp-assert: "1.2345675e+06"; exact here
        ('{"a": true}', "$.a", "true"),
        ('{"a": null}', "$.a", "null"),  # seen: "null"
        # mcp-assert gives {"b":"\u003cx\u003e","z":1}: the same JSON, HTML-escaped
        ('{"a": {"z": 1, "b": "<x>"}}', "$.a", '{"b":"<x>","z":1}'),
        ('{"a": [1, 2.5, "s", null]}', "$.a", '[1,2.5,"s",null]'),  # seen: the same
        ('{"a": 5}', "a", "5"),
        ("[[1, 2], [3]]", "$[1][0]", "3"),
        ('Created:\n{"id": 7}', "$.id", "7"),  # first-line fallback, as json_path (mcp-assert fails here)
    ],
)
def test_capture_value_renders_as_mcp_assert(text: str, path: str, captured: str) -> None:
    assert capture_value(text, path) == captured


@pytest.mark.parametrize("path", ["$", "$.", ""])
def test_capture_of_the_root_is_the_text_unparsed(path: str) -> None:
    # seen in mcp-assert 0.12.3: capture "$" of "not json" gives "not json"
    assert capture_value("not json", path) == "not json"
    assert capture_value('"quoted"', path) == '"quoted"'


def test_capture_failures_are_path_errors() -> None:
    with pytest.raises(PathError, match=r'^\$\.b: no key "b"'):
        capture_value('{"a": 5}', "$.b")
    with pytest.raises(PathError, match=r"^the text is not JSON"):
        capture_value("not json", "$.a")
