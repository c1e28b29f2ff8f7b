"""Secrets a test teaches the masking (`add_secret`) are forgotten after it, so no other test sees them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from toolproof.core import sanitize


@pytest.fixture(autouse=True)
def forget_learned_secrets() -> Iterator[None]:
    before = set(sanitize._LEARNED)
    yield
    sanitize._LEARNED.clear()
    sanitize._LEARNED.update(before)
