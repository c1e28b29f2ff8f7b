"""Arguments written as JavaScript's `JSON.stringify` writes them (what MCPLab's tool-input checks read)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.unit.agent.builders import call, check, run

from toolproof.check.arguments import compact_json
from toolproof.model.scenario import ToolInputCheck


@pytest.mark.parametrize(
    ("value", "written"),  # each as node's JSON.stringify writes it
    [
        ({"limit": 10.0, "q": "x"}, '{"limit":10,"q":"x"}'),
        ({"b": 1, "a": [1, None, True]}, '{"b":1,"a":[1,null,true]}'),  # keys keep their order
        (-0.0, "0"),
        (1.5, "1.5"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (1.5e300, "1.5e+300"),
        (0.000001, "0.000001"),
        (1e-7, "1e-7"),
        (-1.5e-7, "-1.5e-7"),
        (1234567.0, "1234567"),
        (2**53 - 1, "9007199254740991"),
        (2**60, "1152921504606847000"),  # beyond 2**53: read as a double, as JavaScript does
        (float("nan"), "null"),
        (float("inf"), "null"),
        ("é中😀 \u2028", '"é中😀 \u2028"'),  # non-ASCII stays as it is
        ('"\\\n\t\x01', '"\\"\\\\\\n\\t\\u0001"'),
        ("\ud800", '"\\ud800"'),  # a lone surrogate is escaped
    ],
)
def test_written_as_javascript_writes_it(value: Any, written: str) -> None:
    assert compact_json(value) == written


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.floats(allow_nan=False) | st.text(),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
        max_leaves=10,
    ).filter(lambda value: "Infinity" not in json.dumps(value))
)
def test_reads_back_as_the_same_value(value: Any) -> None:
    """JSON.parse reads every number as a double: large digit strings stand for the double they round to."""
    assert json.loads(compact_json(value), parse_int=_as_javascript_reads) == value


def _as_javascript_reads(digits: str) -> int | float:
    number = int(digits)
    return number if abs(number) < 2**53 else float(digits)


def test_mcplab_regex_on_arguments_sees_integral_floats_as_integers() -> None:
    pattern = ToolInputCheck(tool="search", op="regex", value='"limit":10,')
    assert check(pattern, run(call("search", {"limit": 10.0, "q": "x"}))).passed
    assert not check(pattern, run(call("search", {"limit": 10.5, "q": "x"}))).passed
