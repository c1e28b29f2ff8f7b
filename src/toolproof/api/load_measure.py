"""`load_server`: a server loaded with concurrent tool calls and judged by service-level objectives, as a
Python call (the `toolproof load` command)."""

from __future__ import annotations

import signal
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolproof.exit_codes import ExitCode, UsageError

if TYPE_CHECKING:
    from toolproof.probe.load import LoadPlan, LoadReport
    from toolproof.probe.load.slo import Objective


@dataclass(frozen=True)
class LoadResult:
    """What was measured, and the objectives it is judged by."""

    report: LoadReport
    objectives: tuple[Objective, ...] = ()

    @property
    def exit_code(self) -> int:
        """128 + N when signal N stopped the run, 1 when an objective is not met, else 0."""
        if self.report.stopped_by is not None:
            return ExitCode.stopped_by(signal.Signals[self.report.stopped_by])
        met = all(objective.met(self.report) for objective in self.objectives)
        return ExitCode.OK if met else ExitCode.FAILED

    def document(self) -> dict[str, Any]:
        """The measurements and each objective's value, as `--json` writes them."""
        report = self.report
        slo = [
            {"objective": objective.text, "actual": objective.actual(report), "met": objective.met(report)}
            for objective in self.objectives
        ]
        return {**report.as_json(), "slo": slo}


def load_server(plan: LoadPlan, *, slo: str | None = None, handle_signals: bool = False) -> LoadResult:
    """Load a server as `plan` says (see `measure_load`) and judge the measurements by the objectives of
    `slo` (e.g. "p95<200ms,errors<1%": p50 p90 p95 p99 max, errors, rps; < <= > >=). Raises UsageError for
    objectives that do not parse, before any server starts, and `probe.load.LoadError` when the server
    cannot be started or reached."""
    from toolproof.api import measure_load
    from toolproof.probe.load.slo import SloError, parse_slo

    try:
        objectives = parse_slo(slo) if slo else []
    except SloError as error:
        raise UsageError(str(error)) from None
    return LoadResult(measure_load(plan, handle_signals=handle_signals), tuple(objectives))
