"""The stream a run emits: every report (terminal, JSON, JUnit, ...) is a handler of these events."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

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


Event = RunStarted | CaseStarted | CaseFinished | RunFinished


class Sink(Protocol):
    """Consumes run events. A sink must never raise for a problem of its own output (warn instead)."""

    def handle(self, event: Event) -> None: ...
