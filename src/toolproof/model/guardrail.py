"""Guardrails the agent loop runs on each reply: PromptKit's validators, spelled as in its prompt configs.

```yaml
guardrails:
  - {type: banned_words, params: {words: [guarantee, "100%"]}, message: No absolute promises}
  - {type: max_length, params: {max_characters: 1000, max_tokens: 250}}   # `length` is the same
  - {type: max_sentences, params: {max_sentences: 5}}
  - {type: required_fields, params: {required_fields: [order number]}}
  - {type: commit, params: {must_end_with_commit: true, commit_fields: [decision, next step]}}
```
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from toolproof.model.base import Frozen


class BannedWordsParams(Frozen):
    words: tuple[str, ...] = Field(min_length=1)


class LengthParams(Frozen):
    max_characters: int | None = Field(default=None, ge=0)
    max_tokens: int | None = Field(default=None, ge=0)


class SentencesParams(Frozen):
    max_sentences: int = Field(ge=0)


class RequiredFieldsParams(Frozen):
    required_fields: tuple[str, ...] = Field(min_length=1)


class CommitParams(Frozen):
    must_end_with_commit: bool = False
    commit_fields: tuple[str, ...] = ()


class BannedWords(Frozen):
    """Triggers when a word or phrase appears in the reply (case-insensitive, at word boundaries)."""

    type: Literal["banned_words"]
    params: BannedWordsParams
    message: str = ""


class MaxLength(Frozen):
    """Triggers when the reply has more UTF-8 bytes than `max_characters`, or more than `max_tokens`
    estimated as bytes / 4."""

    type: Literal["max_length", "length"]
    params: LengthParams
    message: str = ""


class MaxSentences(Frozen):
    """Triggers when the reply has more sentences (text between runs of `.`, `!`, `?`) than allowed."""

    type: Literal["max_sentences"]
    params: SentencesParams
    message: str = ""


class RequiredFields(Frozen):
    """Triggers when a listed text (case-sensitive) is missing from the reply."""

    type: Literal["required_fields"]
    params: RequiredFieldsParams
    message: str = ""


class Commit(Frozen):
    """With `must_end_with_commit`: triggers when the reply has no decision block (none of "decision",
    "next step", "commit") or lacks a listed field (case-insensitive)."""

    type: Literal["commit"]
    params: CommitParams = CommitParams()
    message: str = ""


Guardrail = Annotated[
    BannedWords | MaxLength | MaxSentences | RequiredFields | Commit, Field(discriminator="type")
]
