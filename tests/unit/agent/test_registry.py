"""Every agent assertion type has one registered checker, label and looked-at declaration, registered by the
module its class names; a type registered twice is refused."""

from __future__ import annotations

import threading
import time
from typing import ClassVar, get_args

import pytest

from toolproof.check import registry
from toolproof.check.registry import CHECKERS, declare, describe, registered
from toolproof.model.scenario import (
    Assertion,
    CallCheck,
    Check,
    JudgeCheck,
    SequenceCheck,
    TextCheck,
    ToolCallCount,
    ToolsCalled,
)

UNION = get_args(get_args(Assertion)[0])


@pytest.mark.parametrize("model", UNION, ids=lambda model: model.__name__)
def test_every_assertion_type_is_registered_by_the_module_its_class_names(model: type[Check]) -> None:
    assert model.checker, f"{model.__name__} names no checker module"
    entry = registered(model.model_construct())
    assert (entry.check is None) == (model is JudgeCheck)
    assert entry.describe.__module__ == f"toolproof.check.{model.checker}"
    assert entry.looks_at == "reply" or callable(entry.looks_at)


def test_the_registered_types_are_the_union() -> None:
    for model in UNION:
        registered(model.model_construct())
    assert set(UNION) == set(CHECKERS)


def test_what_a_check_looks_at_comes_from_its_registration() -> None:
    def tools(check: Check) -> frozenset[str] | None:
        return registered(check).tools(check)

    assert tools(ToolsCalled(tools=("a", "b"))) == {"a", "b"}
    assert tools(CallCheck(name="c")) == {"c"}
    assert tools(SequenceCheck(sequences=(("a", "b"), ("c",)))) == {"a", "b", "c"}
    assert tools(TextCheck(op="contains", values=("x",))) == frozenset()
    assert tools(ToolCallCount(max_count=3)) is None  # every call
    assert tools(ToolCallCount(tool="t", max_count=3)) == {"t"}


def test_an_unknown_type_is_refused() -> None:
    class Unknown(Check):
        pass

    with pytest.raises(TypeError, match="no checker registered for Unknown"):
        registered(Unknown.model_construct())


def test_a_second_registration_is_refused() -> None:
    with pytest.raises(ValueError, match="registered twice"):
        declare(ToolsCalled, describe=lambda check: "again", looks_at="reply")


def test_label_comes_from_the_registered_type_unless_the_check_has_one() -> None:
    assert describe(ToolsCalled(tools=("a", "b"))) == "tools_called: a, b"
    assert describe(ToolsCalled(tools=("a",), label="mine")) == "mine"


def test_a_thread_waits_for_the_checker_module_another_thread_is_importing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Slow(Check):
        checker: ClassVar[str] = "slow"

    started = threading.Event()
    importing: list[bool] = []

    def half_imported(name: str) -> None:
        """As Python's import does for a module another thread is still executing: return at once."""
        if importing:
            return
        importing.append(True)
        started.set()
        time.sleep(0.2)
        declare(Slow, describe=lambda check: "slow", looks_at="reply", check=lambda check, at: None)

    monkeypatch.setattr(registry, "CHECKERS", dict(registry.CHECKERS))
    monkeypatch.setattr(registry, "import_module", half_imported)
    first = threading.Thread(target=registered, args=(Slow(),))
    first.start()
    started.wait()
    assert registered(Slow()).describe(Slow()) == "slow"
    first.join()
