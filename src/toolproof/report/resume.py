"""`--resume FILE`: finish a run that was stopped. FILE is the JSON report the stopped run wrote (a stopped
run writes the reports of what finished); its cases are not run again, and every report of the resumed run
holds their results beside the new ones, in the order one uninterrupted run gives them. A case is finished
when its result is in FILE, with all its trials: a case stopped halfway runs again in full."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from toolproof.model.events import Event, RunFinished, Sink
from toolproof.model.result import CaseResult
from toolproof.report.json_read import read_report, results_of
from toolproof.report.merge import places, position


@dataclass(frozen=True)
class Resume:
    """The results of the stopped run, and the ids (`file::name`) of every case of the resumed one in run
    order."""

    previous: tuple[CaseResult, ...]
    order: tuple[str, ...] = ()

    @classmethod
    def read(cls, path: Path) -> Resume:
        """The finished results of the report at `path`; raises ReportFormatError naming it."""
        return cls(tuple(results_of(read_report(path), str(path))))

    @property
    def finished(self) -> frozenset[str]:
        """The ids of the cases with a result."""
        return frozenset(f"{result.file.as_posix()}::{result.name}" for result in self.previous)

    def combined(self, results: Sequence[CaseResult]) -> list[CaseResult]:
        """The previous results of this run's cases (not those of cases it no longer has, or of another
        shard) and `results`, in run order."""
        where = places(self.order)

        def place(result: CaseResult) -> int:
            return position(f"{result.file.as_posix()}::{result.name}", where)

        kept = [result for result in self.previous if place(result) < len(where)]
        return sorted([*kept, *results], key=place)


class ResumedSink:
    """Hands every event to `sink`, the end of the run with the previous results added."""

    def __init__(self, sink: Sink, resume: Resume) -> None:
        self._sink = sink
        self._resume = resume

    def handle(self, event: Event) -> None:
        if isinstance(event, RunFinished):
            event = replace(event, results=self._resume.combined(event.results))
        self._sink.handle(event)
