"""Recorded agent runs checked against agent cases, without running anything (`toolproof check`), case by
case through the scheduler (`run/scheduler.py`), as `run` and `eval` run theirs.

Each case is checked against the runs recorded for it: runs that name its scenario (id or name); else runs
whose first user message is the case's; else every run that names no scenario and matched no case by its
message (Mibo's passive testing: active cases check every incoming trace). Expressions such as TODAY use the
run's recorded start time unless a fixed moment is given. Imports nothing of the MCP SDK.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo

from toolproof.check.looked_at import run_steps
from toolproof.check.scenario import evaluate
from toolproof.check.stop import with_stop
from toolproof.core.expressions import Clock
from toolproof.core.writing import warn
from toolproof.load.errors import LoadError
from toolproof.model.events import Sink, Warned
from toolproof.model.result import CaseResult, Failure, Status
from toolproof.model.scenario import AgentCase
from toolproof.model.transcript import Transcript
from toolproof.run.in_order import run_in_order
from toolproof.run.load_errors import Broken, by_document, load_error_result


def pair(cases: Sequence[AgentCase], runs: Sequence[Transcript]) -> dict[int, list[Transcript]]:
    """The runs each case (by index) is checked against; see the module docstring."""
    found: dict[int, list[Transcript]] = {index: [] for index in range(len(cases))}
    loose: list[Transcript] = []
    for each in runs:
        if each.scenario is not None:
            for index, case in enumerate(cases):
                if each.scenario in (case.id, case.name):
                    found[index].append(each)
            continue
        by_input = [
            index
            for index, case in enumerate(cases)
            if each.user_input and case.turns and case.turns[0].user.strip() == each.user_input.strip()
        ]
        for index in by_input:
            found[index].append(each)
        if not by_input:
            loose.append(each)
    for index in found:
        if not found[index]:
            found[index] = list(loose)
    return found


def has_judge(case: AgentCase) -> bool:
    """Whether the case has a check only a judge model can decide."""
    return any(assertion.kind == "judge" for _, assertion in case.all_assertions())


@dataclass
class Clocks:
    """The moment expressions such as TODAY see for each run: `fixed` (--now), else the run's recorded
    start, else the time of the check."""

    zone: tzinfo
    fixed: datetime | None = None
    started: float = field(default_factory=time.time)

    def for_run(self, each: Transcript) -> datetime:
        if self.fixed is not None:
            return self.fixed
        if each.started_ms is not None:
            try:
                return datetime.fromtimestamp(each.started_ms / 1000, self.zone)
            except (ValueError, OverflowError, OSError):
                pass  # a start time no clock can show: use the time of the check
        return datetime.fromtimestamp(self.started, self.zone)


def check_suite(
    items: Sequence[AgentCase | LoadError],
    runs_of: Callable[[AgentCase], list[Transcript]],
    clocks: Clocks,
    *,
    by_case: bool,
    sink: Sink,
    maxfail: int = 0,
) -> list[CaseResult]:
    """Every case checked against its runs (`runs_of`), one ERROR result per document that did not load, in
    their order: each case's results are reported as it is checked (its evaluation's warnings as `Warned`
    events), and with `maxfail` the cases after that many failed ones are never checked."""

    def execute(item: AgentCase | Broken) -> list[CaseResult]:
        if not isinstance(item, AgentCase):
            return [load_error_result(*item)]
        return check_case(item, runs_of(item), clocks, by_case=by_case, warned=told)

    def told(message: str) -> None:
        sink.handle(Warned(message))

    def name_of(item: AgentCase | Broken) -> str:
        return item.name if isinstance(item, AgentCase) else item[0].case_name

    entries = by_document(items)
    title = "toolproof check"
    return run_in_order(entries, execute, name_of, sink=sink, title=title, maxfail=maxfail)


def check_case(
    case: AgentCase,
    runs: Sequence[Transcript],
    clocks: Clocks,
    *,
    by_case: bool,
    warned: Callable[[str], None] = warn,
) -> list[CaseResult]:
    """A case's results against its runs: one result per check (`by_case`: per run), a skip for a case with
    no run; what evaluating it warns of goes to `warned` (default: stderr). A run that recorded an early
    stop fails however its checks went, as it did when it was observed."""
    if case.skip or not runs:
        reason = "skip: true in the case" if case.skip else "no recorded run for this case"
        where = {"file": case.source.file, "line": case.source.line}
        return [CaseResult(name=case.name, status=Status.SKIP, reason=reason, **where)]
    results: list[CaseResult] = []
    for label, each in zip(run_labels(runs), runs, strict=True):
        named = case if label is None else case.model_copy(update={"name": f"{case.name} [{label}]"})
        evaluation = evaluate(named, each, clock=Clock(clocks.for_run(each), clocks.zone))
        for warning in evaluation.warnings:
            warned(f"{case.source.file}: {case.name}: {warning}")
        stop = each.stopped
        steps = {"steps": run_steps(evaluation)}
        if by_case:
            results.append(with_stop(evaluation.case_result(), each).model_copy(update=steps))
            continue
        results.extend(result.model_copy(update=steps) for result in evaluation.assertion_results())
        if not evaluation.outcomes:
            where = {"file": case.source.file, "line": case.source.line}
            results.append(CaseResult(name=named.name, status=Status.SKIP, reason=NOTHING_TO_CHECK, **where))
        if stop is not None:
            results.append(_stopped(named, stop))
    return results


NOTHING_TO_CHECK = "nothing to check: the case has no expect: (in it or in its turns)"


def _stopped(case: AgentCase, stop: Failure) -> CaseResult:
    """The result that says a run stopped before its end (beside its checks' own results)."""
    name = f"{case.name} › run stopped early ({stop.check or stop.kind.value})"
    where = {"file": case.source.file, "line": case.source.line}
    return CaseResult(name=name, status=Status.FAIL, failure=stop, **where)


def run_labels(runs: Sequence[Transcript]) -> list[str | None]:
    """What tells a case's runs apart in its results' names: nothing for a single run; else each run's own
    name or source (`run N` without either), numbered `#N` where those are not unique."""
    if len(runs) == 1:
        return [None]
    labels = [each.run or each.source or f"run {number}" for number, each in enumerate(runs, start=1)]
    if len(set(labels)) < len(labels):
        labels = [f"{label} #{number}" for number, label in enumerate(labels, start=1)]
    return [*labels]
