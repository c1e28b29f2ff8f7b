"""The registry of agent assertion checkers, keyed on the assertion's model class.

A checker module declares each checker next to the model class it checks, with what it looks at:

    @checker(ToolsCalled, describe=lambda check: f"tools_called: {', '.join(check.tools)}",
             looks_at=lambda check: check.tools)
    def _tools_called(check: ToolsCalled, at: Scoped) -> Verdict: ...

`check/scenario.py` looks the checker up by the assertion's type. The model class names the `check` module
that registers its checker (`Check.checker`); that module is imported on the first lookup of the type, so a
command loads only the checkers (and their libraries) that its cases use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import import_module
from threading import RLock
from typing import TYPE_CHECKING, Any, Literal, TypeVar

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
LooksAt = Literal["reply"] | Callable[[Any], Iterable[str] | None]
"""What a check looks at, for the report's steps: its scope's `reply`, or the calls of the tools a function of
the check names (None: every call)."""


@dataclass(frozen=True)
class Registered:
    """How one assertion type is checked and labelled. `check` is None for judge checks (asked out of band);
    `reads_reply`: the check reads the reply, so a run that recorded none does not evaluate it; `looks_at`:
    what it looks at (see `LooksAt`)."""

    check: Callable[[Any, Scoped], Verdict] | None
    describe: Callable[[Any], str]
    looks_at: LooksAt
    reads_reply: bool = False

    def tools(self, check: Check) -> frozenset[str] | None:
        """The tools whose calls `check` looks at; None: every call; empty: none (it looks at the reply)."""
        if self.looks_at == "reply":
            return frozenset()
        tools = self.looks_at(check)
        return None if tools is None else frozenset(tools)


CHECKERS: dict[type[Check], Registered] = {}
_IMPORTING = RLock()


def checker(
    model: type[A], *, describe: Callable[[A], str], looks_at: LooksAt, reads_reply: bool = False
) -> Callable[[CheckerFunction[A]], CheckerFunction[A]]:
    """Register the decorated function as the checker of `model`, with its default label and what it looks
    at."""

    def register(function: CheckerFunction[A]) -> CheckerFunction[A]:
        declare(model, describe=describe, looks_at=looks_at, check=function, reads_reply=reads_reply)
        return function

    return register


def declare(
    model: type[A],
    *,
    describe: Callable[[A], str],
    looks_at: LooksAt,
    check: CheckerFunction[A] | None = None,
    reads_reply: bool = False,
) -> None:
    """Register `model`'s checker (None: evaluated out of band, as the judge is), label and what it looks
    at."""
    if model in CHECKERS:
        raise ValueError(f"a checker for {model.__name__} is registered twice")
    CHECKERS[model] = Registered(check, describe, looks_at, reads_reply)


def registered(check: Check) -> Registered:
    """The registration of the check's type, importing its checker module on first use."""
    model = type(check)
    if model not in CHECKERS and model.checker:
        with _IMPORTING:  # another thread may be half-way through importing the module: wait for it
            import_module(f"toolproof.check.{model.checker}")
    try:
        return CHECKERS[model]
    except KeyError:
        raise TypeError(f"no checker registered for {model.__name__}") from None


def describe(check: Check) -> str:
    """The check's label, else the default label of its type."""
    return check.label or registered(check).describe(check)
