"""Expectations keep what two answers share, never a volatile value or a secret."""

from __future__ import annotations

import json

import pytest

from toolproof.author.expectations import expectations, json_paths, stable_lines
from toolproof.check.expect import check_not_empty
from toolproof.model.observation import Observation
from toolproof.model.server_case import Expect


def answer(text: str, *, error: bool = False) -> Observation:
    return Observation(text=text, is_error=error)


def test_json_leaves_that_stayed_the_same_shallow_first() -> None:
    first = json.dumps({"id": "123e4567-e89b-12d3-a456-426614174000", "n": 1, "items": [{"name": "a"}],
                        "count": 5, "at": "2026-01-01T00:00:00Z", "ratio": 0.5, "none": None, "a.b": 1})
    second = json.dumps({"id": "123e4567-e89b-12d3-a456-426614174000", "n": 1, "items": [{"name": "a"}],
                         "count": 6, "at": "2026-01-01T00:00:00Z", "ratio": 0.5, "none": None, "a.b": 1})
    assert json_paths(first, second) == {"$.n": 1, "$.items[0].name": "a"}


def test_text_lines_shared_by_both_answers() -> None:
    first = "Result\nrequest 17 at 12:00:01\nok: yes\nx\n"
    second = "Result\nrequest 18 at 12:00:02\nok: yes\n"
    assert stable_lines(first, second) == ["Result", "ok: yes"]


def test_expect_mapping() -> None:
    both = [answer("fine"), answer("fine")]
    assert expectations(both, tool=True) == {"not_error": True, "contains": ["fine"]}
    assert expectations([answer("no", error=True)] * 2, tool=True) == {"is_error": True, "not_empty": True}
    assert expectations([answer("a1"), answer("b2")], tool=False) == {"not_empty": True}
    assert expectations([answer(""), answer("")], tool=True) == {"not_error": True}
    assert expectations([answer("[]"), answer("[]")], tool=False) == {}


@pytest.mark.parametrize("text", ["", " ", "null", "[]", " {} \n", "x", "[1]", '{"a": null}'])
def test_a_generated_not_empty_passes_on_the_answer_it_came_from(text: str) -> None:
    """Generator and checker share one definition of an empty answer, so a generated suite passes at once."""
    generated = expectations([answer(text)] * 2, tool=False)
    checked = check_not_empty(Expect(not_empty=True), answer(text))
    if "not_empty" in generated:
        assert checked is None
    if checked is not None:  # the checker calls it empty: nothing may expect it not to be
        assert "not_empty" not in generated


def test_secrets_are_never_expected() -> None:
    text = json.dumps({"API_KEY": "sk-live-abcdefgh", "HOME": "/home/me"})
    assert expectations([answer(text)] * 2, tool=True, secrets={"sk-live-abcdefgh"}) == {
        "not_error": True, "json_path": {"$.HOME": "/home/me"}
    }
    assert stable_lines("token sk-live-abcdefgh\nplain", "token sk-live-abcdefgh\nplain",
                        {"sk-live-abcdefgh"}) == ["plain"]
