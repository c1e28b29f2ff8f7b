"""Differences name the changed field (JSON) or line (text)."""

from __future__ import annotations

from toolproof.author.diff import ABSENT, Difference, render, text_differences, tree_differences


def test_json_answers_differ_by_field() -> None:
    before = '{"user": {"name": "Ann", "tags": ["a", "b"]}, "n": 1}'
    after = '{"user": {"name": "Bob", "tags": ["a"]}, "n": 1, "new key": true}'
    found = text_differences(before, after)
    assert found == [
        Difference("$.user.name", "Ann", "Bob"),
        Difference("$.user.tags[1]", "b", ABSENT),
        Difference('$["new key"]', ABSENT, True),
    ]
    assert render(found).splitlines() == [
        '$.user.name: "Ann" -> "Bob"',
        '$.user.tags[1]: removed (was "b")',
        '$["new key"]: added true',
    ]


def test_a_type_change_is_a_difference() -> None:
    assert tree_differences({"n": 1}, {"n": "1"}) == [Difference("$.n", 1, "1")]
    assert tree_differences({"n": 1}, {"n": True}) == [Difference("$.n", 1, True)]


def test_text_answers_differ_by_line() -> None:
    found = text_differences("alpha\nbeta\ngamma", "alpha\nBETA\ngamma\ndelta")
    assert [item.render() for item in found] == ['line 2: "beta" -> "BETA"', 'line 4: added "delta"']


def test_equal_texts_have_no_difference() -> None:
    assert text_differences("same", "same") == []
    assert text_differences("a", "b") == [Difference("line 1", "a", "b")]


def test_render_caps_the_list() -> None:
    many = [Difference(f"$.k{i}", i, i + 1) for i in range(12)]
    assert render(many, limit=3).splitlines()[-1] == "... and 9 more"
