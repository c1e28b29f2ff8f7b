"""The stream a run emits: every report (terminal, JSON, JUnit, ...) is a handler of these events."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # annotations only: the events load without the result models
    from toolproof.model.result import CaseResult


@dataclass(frozen=True)
class RunStarted:
    total: int
    jobs: int = 1
    title: str = "toolproof"
    settings: dict[str, object] = field(default_factory=dict)  # what replays the run (fuzz: seed, runs, ...)


@dataclass(frozen=True)
class CaseStarted:
    name: str
    index: int
    total: int


@dataclass(frozen=True)
class CaseFinished:
    result: CaseResult
    index: int
    total: int


@dataclass(frozen=True)
class RunFinished:
    results: list[CaseResult] = field(default_factory=list)
    duration_s: float = 0.0


@dataclass(frozen=True)
class Warned:
    """A warning about the run as a whole, e.g. an option that changes none of its cases (a case's own
    warnings travel on its result)."""

    message: str


@dataclass(frozen=True)
class LoadFailed:
    """A document that did not load, as soon as the run meets it: where it is and each problem (a `LoadError`
    of `load/errors.py`, as text); it is also reported as an ERROR case."""

    file: Path
    line: int
    problems: tuple[str, ...]


@dataclass(frozen=True)
class TrialFinished:
    """One trial of a case run several times (`trials`): the `trial`th of `trials`; the case's combined
    result follows as its `CaseFinished`."""

    result: CaseResult
    trial: int
    trials: int


@dataclass(frozen=True)
class RunStopped:
    """The run stopped before every case finished (a stop signal, or `--maxfail` reached): `reason`, which
    completes "stopped ..." ("after 1 failure (-x/--maxfail)"), and how many cases did not finish;
    `RunFinished` follows with the cases that did."""

    reason: str
    unfinished: int


Event = (
    RunStarted | CaseStarted | CaseFinished | RunFinished | Warned | LoadFailed | TrialFinished | RunStopped
)


class Sink(Protocol):
    """Consumes run events. A sink must never raise for a problem of its own output (warn instead)."""

    def handle(self, event: Event) -> None: ...
