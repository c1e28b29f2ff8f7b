"""Expectations keep what two answers share, never a volatile value or a secret."""

from __future__ import annotations

import json

from toolproof.author.expectations import expectations, json_paths, stable_lines
from toolproof.model.observation import Observation


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
    assert expectations([answer("[]"), answer("[]")], tool=False) == {"not_empty": True}


def test_secrets_are_never_expected() -> None:
    text = json.dumps({"API_KEY": "sk-live-abcdefgh", "HOME": "/home/me"})
    assert expectations([answer(text)] * 2, tool=True, secrets={"sk-live-abcdefgh"}) == {
        "not_error": True, "json_path": {"$.HOME": "/home/me"}
    }
    assert stable_lines("token sk-live-abcdefgh\nplain", "token sk-live-abcdefgh\nplain",
                        {"sk-live-abcdefgh"}) == ["plain"]
