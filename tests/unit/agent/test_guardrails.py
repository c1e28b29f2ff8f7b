"""PromptKit's validators as the agent loop runs them on a reply: what each one triggers on."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from toolproof.model.guardrail import Guardrail
from toolproof.model.transcript import GuardrailEvent
from toolproof.sources.agent.guardrails import evaluate, sentences

READ: TypeAdapter[Guardrail] = TypeAdapter(Guardrail)


def triggered(config: dict[str, Any], reply: str) -> bool:
    (event,) = evaluate([READ.validate_python(config)], reply)
    return event.triggered


BANNED = {"type": "banned_words", "params": {"words": ["guarantee", "100%", "no way"]}}


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("I GUARANTEE it.", True),  # case-insensitive
        ("It is guaranteed.", False),  # word boundary: not a part of a longer word
        ("No way, sorry.", True),  # a phrase
        ("It works 100%x", True),  # Go's \b after a non-word character needs a word character next
        ("It works 100% of the time", False),
        ("", False),
    ],
)
def test_banned_words(reply: str, expected: bool) -> None:
    assert triggered(BANNED, reply) is expected


@pytest.mark.parametrize(
    ("params", "reply", "expected"),
    [
        ({"max_characters": 5}, "hello", False),
        ({"max_characters": 5}, "hello!", True),
        ({"max_characters": 5}, "héllo", True),  # UTF-8 bytes, as Go's len
        ({"max_tokens": 2}, "a" * 11, False),  # 11 // 4 = 2 estimated tokens
        ({"max_tokens": 2}, "a" * 12, True),
        ({}, "a" * 10_000, False),
    ],
)
def test_max_length(params: dict[str, int], reply: str, expected: bool) -> None:
    assert triggered({"type": "max_length", "params": params}, reply) is expected
    assert triggered({"type": "length", "params": params}, reply) is expected


@pytest.mark.parametrize(
    ("text", "count"),
    [("", 0), ("no punctuation", 1), ("Hello! How? Fine...", 3), ("One. Two.  ", 2), ("?!", 1)],
)
def test_sentence_count(text: str, count: int) -> None:
    assert sentences(text) == count


def test_max_sentences() -> None:
    rule = {"type": "max_sentences", "params": {"max_sentences": 2}}
    assert not triggered(rule, "One. Two.")
    assert triggered(rule, "One. Two. Three.")


def test_required_fields_are_case_sensitive() -> None:
    rule = {"type": "required_fields", "params": {"required_fields": ["order number", "ETA"]}}
    assert not triggered(rule, "Your order number is 7, ETA Monday.")
    assert triggered(rule, "Your Order Number is 7, ETA Monday.")
    assert triggered(rule, "Your order number is 7.")


def test_commit() -> None:
    rule = {
        "type": "commit",
        "params": {"must_end_with_commit": True, "commit_fields": ["decision", "reasoning"]},
    }
    assert not triggered(rule, "Decision: approve\nReasoning: within policy")
    assert triggered(rule, "Decision: approve")  # a field is missing
    assert triggered(rule, "Approved.")  # no commit structure at all
    off = {"type": "commit", "params": {"commit_fields": ["decision"]}}
    assert not triggered(off, "Approved.")  # only checked with must_end_with_commit


def test_one_event_per_guardrail_with_the_message_when_triggered() -> None:
    rules = [
        READ.validate_python({**BANNED, "message": "No promises"}),
        READ.validate_python({"type": "max_sentences", "params": {"max_sentences": 5}}),
    ]
    assert evaluate(rules, "I guarantee it.") == (
        GuardrailEvent(name="banned_words", triggered=True, message="No promises: banned words: guarantee"),
        GuardrailEvent(name="max_sentences", triggered=False, message=""),
    )


@pytest.mark.parametrize(
    "config",
    [
        {"type": "banned_word", "params": {"words": ["x"]}},
        {"type": "banned_words", "params": {"words": []}},
        {"type": "banned_words", "params": {"word": ["x"]}},
        {"type": "max_sentences", "params": {}},
        {"type": "max_length", "params": {"max_characters": "many"}},
    ],
)
def test_malformed_guardrails_are_rejected(config: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        READ.validate_python(config)
