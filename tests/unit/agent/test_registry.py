"""Every agent assertion type has one registered checker and label; a type registered twice is refused."""

from __future__ import annotations

import threading
import time
from typing import ClassVar, get_args

import pytest

from toolproof.check import registry
from toolproof.check.registry import CHECKERS, MODULES, declare, describe, registered
from toolproof.model.scenario import Assertion, Check, JudgeCheck, ToolsCalled


def test_every_assertion_type_is_registered_by_the_module_the_table_names() -> None:
    union = get_args(get_args(Assertion)[0])
    assert {model.__name__ for model in union} == set(MODULES)
    for model in union:
        entry = registered(model.model_construct())
        assert (entry.check is None) == (model is JudgeCheck)
        assert entry.describe.__module__ == MODULES[model.__name__] or model is JudgeCheck
    assert set(union) == set(CHECKERS)


def test_an_unknown_type_is_refused() -> None:
    class Unknown(Check):
        pass

    with pytest.raises(TypeError, match="no checker registered for Unknown"):
        registered(Unknown.model_construct())


def test_a_second_registration_is_refused() -> None:
    with pytest.raises(ValueError, match="registered twice"):
        declare(ToolsCalled, describe=lambda check: "again")


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
