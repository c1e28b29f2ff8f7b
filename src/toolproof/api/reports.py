"""What a call reports while it runs (`Reports`), and verdicts reached all at once sent as a run's events."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TextIO

if TYPE_CHECKING:
    from toolproof.load.shards import Sharded
    from toolproof.model.events import Sink
    from toolproof.model.result import CaseResult
    from toolproof.report.baseline import Entry
    from toolproof.report.resume import Resume


@dataclass(frozen=True)
class Reports:
    """What to report while a call runs: the terminal report on `terminal` (None: none), and the JSON
    (`json`, "-" for stdout) and JUnit files; Markdown appended to `markdown` and to each of
    `step_summaries`; the HTML page; the badge; this run's baseline (`save_baseline`) and the comparison
    with a loaded one (`baseline`); the `durations` slowest cases and the pass rate against `threshold` on
    the terminal; the last-failed record and each case's duration in `state_dir` (a server suite run with
    the same `state_dir` starts the slowest cases first); `sharded`: the shard the JSON report records;
    `resume`: a stopped run's results every report adds to this run's; `files`: a destination for any format
    of `report/formats.py` by its name (the built-in formats' fields are shorthands for it). Secret values
    are masked in each."""

    terminal: TextIO | None = None
    json: str | Path | None = None
    junit: str | Path | None = None
    verbosity: Literal["quiet", "normal", "verbose"] = "normal"
    markdown: str | Path | None = None
    step_summaries: tuple[str | Path, ...] = ()
    html: str | Path | None = None
    badge: str | Path | None = None
    save_baseline: str | Path | None = None
    baseline: Mapping[str, Entry] | None = None
    durations: int | None = None
    threshold: int | None = None
    state_dir: str | Path | None = None
    title: str | None = None
    sharded: Sharded | None = None
    resume: Resume | None = None
    files: Mapping[str, str | Path] = field(default_factory=dict)

    def sink(self, secrets: Iterable[str], also: Sink | None = None) -> Sink:
        """One sink feeding every report asked for (and `also`): the terminal and its notes, then each
        format of `report/formats.py` `FORMATS` that has a destination, then the state records."""
        from toolproof.report import formats
        from toolproof.report.formats import Context
        from toolproof.report.sinks import Broadcast

        masked = frozenset(secrets)
        sinks: list[Sink] = []
        if self.terminal is not None:
            from toolproof.report.terminal import TerminalReport, Verbosity

            level = Verbosity[self.verbosity.upper()]
            sinks.append(TerminalReport(stdout=self.terminal, verbosity=level, secrets=set(masked)))
        sinks += self._ci_sinks(set(masked))
        context = Context(masked, self.title, self.baseline, self.sharded)
        for row in formats.FORMATS:
            sinks += [row.make(destination, context) for destination in self.destinations(row.name)]
        sinks += self._state_sinks()
        every = Broadcast([*sinks, *([also] if also is not None else [])])
        known = [row.name for row in formats.FORMATS]
        for name in sorted(set(self.files) - set(known)):
            from toolproof.model.events import Warned

            unknown = f"no report format is named {name!r}; not written (formats: {', '.join(known)})"
            every.handle(Warned(unknown))
        if self.resume is None:
            return every
        from toolproof.report.resume import ResumedSink

        return ResumedSink(every, self.resume)

    def destinations(self, name: str) -> list[str | Path]:
        """Where the format `name` is written: its field (the formats built in have one), its entry in
        `files`, and for Markdown each of `step_summaries`."""
        given = [getattr(self, name, None), self.files.get(name)]
        if name == "markdown":
            given += self.step_summaries
        return [destination for destination in given if destination]

    def _ci_sinks(self, masked: set[str]) -> list[Sink]:
        """The lines after the terminal summary: slowest cases, the baseline comparison, the pass rate."""
        found: list[Sink] = []
        if self.terminal is None:
            return found
        if self.durations is not None:
            from toolproof.report.durations import DurationsReport

            found.append(DurationsReport(self.durations, stdout=self.terminal, secrets=masked))
        if self.baseline is not None:
            from toolproof.report.notes import BaselineNote

            found.append(BaselineNote(dict(self.baseline), stdout=self.terminal, secrets=masked))
        if self.threshold is not None:
            from toolproof.report.notes import ThresholdNote

            found.append(ThresholdNote(self.threshold, stdout=self.terminal))
        return found

    def _state_sinks(self) -> list[Sink]:
        """The last-failed record and each case's duration, under `state_dir`."""
        if self.state_dir is None:
            return []
        from toolproof.report.history import LastFailedWriter
        from toolproof.report.timings import DurationsWriter

        return [LastFailedWriter(Path(self.state_dir)), DurationsWriter(Path(self.state_dir))]


def report_results(results: Sequence[CaseResult], sink: Sink, title: str, duration_s: float) -> None:
    """Send verdicts reached all at once to `sink` as the events of a run."""
    from toolproof.model.events import CaseFinished, CaseStarted, RunFinished, RunStarted

    sink.handle(RunStarted(total=len(results), title=title))
    for index, result in enumerate(results):
        sink.handle(CaseStarted(name=result.name, index=index, total=len(results)))
        sink.handle(CaseFinished(result=result, index=index, total=len(results)))
    sink.handle(RunFinished(results=list(results), duration_s=duration_s))
