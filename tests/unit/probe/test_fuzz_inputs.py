"""Fuzz inputs: reproducible per seed and tool, mcp-assert's categories plus schema boundaries."""

from __future__ import annotations

import math
from typing import Any

from toolproof.probe.fuzz_inputs import fuzz_inputs

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "count": {"type": "integer", "minimum": 1, "maximum": 10},
        "name": {"type": "string", "maxLength": 5},
        "unit": {"type": "string", "enum": ["celsius", "kelvin"]},
        "when": {"type": "string", "format": "date-time"},
        "ratio": {"type": "number"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["count", "unit"],
}


RANDOM = (": null", ": omitted", " chars)", *(str(digit) for digit in range(10)))


def categories(**options: Any) -> list[str]:
    return [item.category for item in fuzz_inputs(SCHEMA, **{"seed": 1, "tool": "t", "runs": 500, **options})]


def test_same_seed_same_inputs_in_the_same_order() -> None:
    first = fuzz_inputs(SCHEMA, seed=42, tool="t", runs=200)
    second = fuzz_inputs(SCHEMA, seed=42, tool="t", runs=200)
    assert [(i.category, repr(i.arguments)) for i in first] == [
        (i.category, repr(i.arguments)) for i in second
    ]


def test_another_seed_changes_only_the_random_part() -> None:
    first = fuzz_inputs(SCHEMA, seed=1, tool="t", runs=200)
    second = fuzz_inputs(SCHEMA, seed=2, tool="t", runs=200)
    shared = next(index for index, (a, b) in enumerate(zip(first, second, strict=True)) if repr(a) != repr(b))
    assert shared > 60
    assert all(item.category.endswith(RANDOM) for item in first[shared:])
    assert first != second


def test_mcp_assert_categories_come_first() -> None:
    found = categories()
    assert found[:4] == ["empty object", "null args", "missing required: count", "missing required: unit"]
    for category in ("name: empty string", "name: SQL injection", "count: max int32", "ratio: NaN",
                     "tags: 1000 items", "name: wrong type (sent int)"):  # fmt: skip
        assert category in found


def test_schema_boundaries_and_unicode() -> None:
    found = categories()
    expected = [
        "count: minimum - 1",
        "count: maximum + 1",
        "name: maxLength + 1",
        "unit: enum near miss (case)",
    ]
    expected += ["when: malformed date-time", "name: right-to-left override"]
    assert set(expected) <= set(found)
    by_name = {item.category: item.arguments for item in fuzz_inputs(SCHEMA, seed=1, tool="t", runs=500)}
    assert by_name["count: minimum - 1"]["count"] == 0
    assert by_name["count: maximum + 1"]["count"] == 11
    assert by_name["name: maxLength + 1"]["name"] == "xxxxxx"


def test_other_fields_stay_valid() -> None:
    by_name = {item.category: item.arguments for item in fuzz_inputs(SCHEMA, seed=1, tool="t", runs=500)}
    assert by_name["name: emoji"]["count"] == 1
    assert by_name["name: emoji"]["unit"] == "celsius"


def test_inputs_json_cannot_carry_are_marked() -> None:
    unsendable = {i.category for i in fuzz_inputs(SCHEMA, seed=1, tool="t", runs=500) if not i.sendable}
    assert unsendable == {"ratio: NaN", "ratio: infinity"}
    nan = next(i for i in fuzz_inputs(SCHEMA, seed=1, tool="t", runs=500) if i.category == "ratio: NaN")
    assert math.isnan(nan.arguments["ratio"])


def test_runs_cuts_the_list_and_random_mutations_fill_it() -> None:
    assert len(fuzz_inputs(SCHEMA, seed=1, tool="t", runs=5)) == 5
    assert len(fuzz_inputs(SCHEMA, seed=1, tool="t", runs=400)) == 400
    assert len(fuzz_inputs({"type": "object"}, seed=1, tool="t", runs=50)) == 2
