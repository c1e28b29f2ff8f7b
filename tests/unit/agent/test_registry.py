"""Every agent assertion type has one registered checker and label; a type registered twice is refused."""

from __future__ import annotations

from typing import get_args

import pytest

import toolproof.check.scenario  # noqa: F401  (registers every checker)
from toolproof.check.registry import CHECKERS, declare, describe, registered
from toolproof.model.scenario import Assertion, JudgeCheck, ToolsCalled


def test_every_assertion_type_is_registered() -> None:
    union = get_args(get_args(Assertion)[0])
    assert set(union) == set(CHECKERS)
    for model in union:
        entry = registered(model.model_construct())
        assert (entry.check is None) == (model is JudgeCheck)


def test_a_second_registration_is_refused() -> None:
    with pytest.raises(ValueError, match="registered twice"):
        declare(ToolsCalled, describe=lambda check: "again")


def test_label_comes_from_the_registered_type_unless_the_check_has_one() -> None:
    assert describe(ToolsCalled(tools=("a", "b"))) == "tools_called: a, b"
    assert describe(ToolsCalled(tools=("a",), label="mine")) == "mine"
