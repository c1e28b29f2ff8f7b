"""Go renderings: fmt %v, json.Marshal, strings.TrimSpace, %q-style quoting."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolproof.core.gofmt import cut, go_json, go_number, go_trim, go_v, quote

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda items: st.lists(items, max_size=4) | st.dictionaries(st.text(max_size=5), items, max_size=4),
    max_leaves=12,
)


@pytest.mark.parametrize(
    ("value", "rendered"),
    [
        (None, "<nil>"),
        (True, "true"),
        (False, "false"),
        ("36", "36"),
        ("", ""),
        (36, "36"),
        (36.0, "36"),  # Go prints an integral float64 without ".0"
        (1.5, "1.5"),
        (-2.25, "-2.25"),
        (0.0001, "0.0001"),
        (1e-05, "1e-05"),  # Go's %v: "1e-05" too
        (1e-07, "1e-07"),  # seen in mcp-assert 0.12.3: json_path {"$.a": "1e-07"} passes on {"a": 1e-7}
        (1e21, "1e+21"),
        (float("inf"), "+Inf"),
        (float("-inf"), "-Inf"),
        (float("nan"), "NaN"),
        ([], "[]"),
        ({}, "map[]"),
        ([1, "a", None, True], "[1 a <nil> true]"),
        # seen in mcp-assert 0.12.3: json_path {"$.a": "map[x:[1 s] y:2]"} passes on
        # {"a": {"y": 2, "x": [1, "s"]}}
        ({"y": 2, "x": [1, "s"]}, "map[x:[1 s] y:2]"),
        ({"b": {"d": 1, "c": []}, "a": "é"}, "map[a:é b:map[c:[] d:1]]"),
        ({10: "y", 2: "x"}, "map[2:x 10:y]"),  # fmt sorts numeric keys by value
        (("t", 1), "[t 1]"),
    ],
)
def test_go_v_renders_like_go_fmt(value: Any, rendered: str) -> None:
    assert go_v(value) == rendered


@pytest.mark.parametrize(
    ("value", "rendered"),
    [
        (1234567, "1234567"),  # Go's %v of float64(1234567) is "1.234567e+06": numbers stay exact here
        (1234567.0, "1234567"),
        (1234567.5, "1234567.5"),  # Go: "1.2345675e+06"
        (12345678901234567890, "12345678901234567890"),  # Go: "1.2345678901234567e+19"
        (100000, "100000"),
    ],
)
def test_go_number_keeps_exact_values(value: int | float, rendered: str) -> None:
    assert go_number(value) == rendered
    assert go_v(value) == rendered


@given(st.integers())
def test_go_v_of_an_integer_is_its_digits(number: int) -> None:
    assert go_v(number) == str(number)


@given(st.integers(min_value=-(2**53), max_value=2**53))
def test_go_v_of_an_integral_float_equals_the_integer(number: int) -> None:
    assert go_v(float(number)) == go_v(number)


@given(st.dictionaries(st.text(max_size=5), st.integers(), max_size=6))
def test_go_v_of_a_map_ignores_insertion_order(mapping: dict[str, int]) -> None:
    reversed_mapping = dict(reversed(list(mapping.items())))
    assert go_v(reversed_mapping) == go_v(mapping)


@given(JSON_VALUES)
def test_go_v_survives_a_json_round_trip(value: Any) -> None:
    assert go_v(json.loads(json.dumps(value))) == go_v(value)


@given(JSON_VALUES)
def test_go_json_is_json_of_the_same_value(value: Any) -> None:
    decoded = json.loads(go_json(value))
    assert go_v(decoded) == go_v(value)


def test_go_json_is_compact_sorted_and_unescaped() -> None:
    assert go_json({"b": 1, "a": "<x>&é", "c": [2.0, 1.5, None]}) == '{"a":"<x>&é","b":1,"c":[2,1.5,null]}'


def test_go_trim_removes_what_go_trimspace_removes() -> None:
    assert go_trim("\u00a0\t hello \u3000\u2028\n") == "hello"
    assert go_trim("\x1chello\x1f") == "\x1chello\x1f"  # Python's strip() would remove these, Go's does not


def test_quote_escapes_and_cuts_long_text() -> None:
    assert quote('a "b"\n') == '"a \\"b\\"\\n"'
    assert quote("x" * 301) == '"' + "x" * 300 + '…"'
    assert quote("x" * 301, limit=None) == '"' + "x" * 301 + '"'
    assert quote("héllo") == '"héllo"'


def test_cut_adds_an_ellipsis_only_when_it_cuts() -> None:
    assert cut("abc", 3) == "abc"
    assert cut("abcd", 3) == "abc…"
