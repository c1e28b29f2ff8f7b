"""Run the configured guardrails on a reply, as PromptKit's validators judge it: one event per guardrail,
named by its type, `triggered` when the reply violates it."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import re2

from toolproof.core.re2_patterns import compile_re2
from toolproof.model.guardrail import (
    BannedWords,
    Commit,
    Guardrail,
    MaxLength,
    MaxSentences,
    RequiredFields,
)
from toolproof.model.transcript import GuardrailEvent

COMMIT_MARKERS = ("decision", "next step", "commit")


def banned_words(rule: BannedWords, reply: str) -> str | None:
    """The banned words found (RE2, as Go's `(?i)\\bword\\b`), or None."""
    found = [
        word
        for word in rule.params.words
        if compile_re2(r"(?i)\b" + re2.escape(word) + r"\b").search(reply) is not None
    ]
    return f"banned words: {', '.join(found)}" if found else None


def max_length(rule: MaxLength, reply: str) -> str | None:
    """Which limit the reply's length (UTF-8 bytes; tokens estimated as bytes / 4) exceeds, or None."""
    size = len(reply.encode())
    over = []
    if rule.params.max_characters is not None and size > rule.params.max_characters:
        over.append(f"{size} characters > {rule.params.max_characters}")
    if rule.params.max_tokens is not None and size // 4 > rule.params.max_tokens:
        over.append(f"~{size // 4} tokens > {rule.params.max_tokens}")
    return "; ".join(over) or None


def sentences(text: str) -> int:
    """Non-empty pieces between runs of `.`, `!`, `?`; a text without them is one sentence."""
    if not text.strip():
        return 0
    pieces = [piece for piece in re2.split(r"[.!?]+", text) if piece.strip()]
    return len(pieces) or 1


def max_sentences(rule: MaxSentences, reply: str) -> str | None:
    count = sentences(reply)
    return f"{count} sentences > {rule.params.max_sentences}" if count > rule.params.max_sentences else None


def required_fields(rule: RequiredFields, reply: str) -> str | None:
    missing = [field for field in rule.params.required_fields if field not in reply]
    return f"missing: {', '.join(missing)}" if missing else None


def commit(rule: Commit, reply: str) -> str | None:
    if not rule.params.must_end_with_commit or not rule.params.commit_fields:
        return None
    lowered = reply.lower()
    if not any(marker in lowered for marker in COMMIT_MARKERS):
        return "missing commit structure"
    missing = [field for field in rule.params.commit_fields if field.lower() not in lowered]
    return f"missing commit fields: {', '.join(missing)}" if missing else None


_VALIDATORS: dict[type, Callable[..., str | None]] = {
    BannedWords: banned_words,
    MaxLength: max_length,
    MaxSentences: max_sentences,
    RequiredFields: required_fields,
    Commit: commit,
}


def evaluate(guardrails: Sequence[Guardrail], reply: str) -> tuple[GuardrailEvent, ...]:
    """One event per guardrail, in order; a triggered one's message is its `message` and what it found."""
    events = []
    for rule in guardrails:
        found = _VALIDATORS[type(rule)](rule, reply)
        message = ": ".join(part for part in (rule.message, found) if part) if found else ""
        events.append(GuardrailEvent(name=rule.type, triggered=found is not None, message=message))
    return tuple(events)
