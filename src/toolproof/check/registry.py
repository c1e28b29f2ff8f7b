"""The registry of agent assertion checkers, keyed on the assertion's model class.

A checker module declares each checker next to the model class it checks:

    @checker(ToolsCalled, describe=lambda check: f"tools_called: {', '.join(check.tools)}")
    def _tools_called(check: ToolsCalled, at: Scoped) -> Verdict: ...

`check/scenario.py` looks the checker up by the assertion's type. `MODULES` names the module that registers
each type's checker; it is imported on the first lookup of that type, so a command loads only the checkers
(and their libraries) that its cases use.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Any, TypeVar

from toolproof.model.result import Failure
from toolproof.model.scenario import Check

if TYPE_CHECKING:
    from toolproof.check.run_view import Scoped


@dataclass(frozen=True)
class NotEvaluated:
    """A check that had no data to judge (e.g. no token usage in the run): reported, never a pass."""

    reason: str


Verdict = Failure | NotEvaluated | None
A = TypeVar("A", bound=Check)
CheckerFunction = Callable[[A, "Scoped"], Verdict]


@dataclass(frozen=True)
class Registered:
    """How one assertion type is checked and labelled. `check` is None for judge checks (asked out of band);
    `reads_reply`: the check reads the reply, so a run that recorded none does not evaluate it."""

    check: Callable[[Any, Scoped], Verdict] | None
    describe: Callable[[Any], str]
    reads_reply: bool = False


CHECKERS: dict[type[Check], Registered] = {}

# assertion model class name -> the module whose import registers its checker
MODULES: dict[str, str] = {
    **dict.fromkeys(
        ("ToolsCalled", "ToolsNotCalled", "CallCheck", "ToolInputCheck"), "toolproof.check.calls"
    ),
    **dict.fromkeys(
        (
            "TextCheck",
            "RegexCheck",
            "JsonPathCheck",
            "FieldCheck",
            "SchemaCheck",
            "StatusCheck",
            "LatencyCheck",
            "GuardrailCheck",
        ),
        "toolproof.check.response",
    ),
    "SequenceCheck": "toolproof.check.sequence",
    "TokenLimitCheck": "toolproof.check.usage",
    "JudgeCheck": "toolproof.check.judge",
}


def checker(
    model: type[A], *, describe: Callable[[A], str], reads_reply: bool = False
) -> Callable[[CheckerFunction[A]], CheckerFunction[A]]:
    """Register the decorated function as the checker of `model`, with its default label."""

    def register(function: CheckerFunction[A]) -> CheckerFunction[A]:
        declare(model, describe=describe, check=function, reads_reply=reads_reply)
        return function

    return register


def declare(
    model: type[A],
    *,
    describe: Callable[[A], str],
    check: CheckerFunction[A] | None = None,
    reads_reply: bool = False,
) -> None:
    """Register `model`'s checker (None: evaluated out of band, as the judge is) and label."""
    if model in CHECKERS:
        raise ValueError(f"a checker for {model.__name__} is registered twice")
    CHECKERS[model] = Registered(check, describe, reads_reply)


def registered(check: Check) -> Registered:
    """The registration of the check's type, importing its checker module on first use."""
    model = type(check)
    if model not in CHECKERS and model.__name__ in MODULES:
        import_module(MODULES[model.__name__])
    try:
        return CHECKERS[model]
    except KeyError:
        raise TypeError(f"no checker registered for {model.__name__}") from None


def describe(check: Check) -> str:
    """The check's label, else the default label of its type."""
    return check.label or registered(check).describe(check)
