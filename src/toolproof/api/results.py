"""What a call gives back: the verdicts and their exit status (`SuiteResult`), and a collected suite."""

from __future__ import annotations

import signal
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolproof.exit_codes import ExitCode

if TYPE_CHECKING:
    from toolproof.load.errors import LoadError
    from toolproof.load.shards import Sharded
    from toolproof.model.result import CaseResult
    from toolproof.model.server_case import Case
    from toolproof.probe.scan.run import Unreached
    from toolproof.report.gate import Gate
    from toolproof.report.resume import Resume


@dataclass(frozen=True)
class SuiteResult:
    """The verdicts of one call, in suite order; `stopped_by` is the signal that ended it early, if any;
    `nothing_ran` says that cases were found but none could run (`check_traces`: none had a recorded run);
    `gate`: the threshold and baseline that decide `exit_code` again (`Reports.gate`), not applied to a run
    `--maxfail` cut short, which left `not_run` cases unrun; `decides=False`: the call only wrote reports
    (`merge_reports` without a gate), and its exit status is 0."""

    results: tuple[CaseResult, ...]
    duration_s: float = 0.0
    stopped_by: signal.Signals | None = None
    nothing_ran: bool = False
    sharded: Sharded | None = None  # --shard: the shard run and the whole selection it was taken from
    gate: Gate | None = None
    not_run: int = 0
    decides: bool = True

    def _count(self, status: str) -> int:
        return sum(1 for result in self.results if result.status == status)

    @property
    def passed(self) -> int:
        return self._count("PASS")

    @property
    def failed(self) -> int:
        return self._count("FAIL")

    @property
    def errors(self) -> int:
        return self._count("ERROR")

    @property
    def skipped(self) -> int:
        return self._count("SKIP")

    @property
    def verdicts_code(self) -> int:
        """The exit status of the verdicts alone, before the gate: an `ExitCode`, or 128 + the signal
        number."""
        if self.stopped_by is not None:
            return ExitCode.stopped_by(self.stopped_by)
        status = exit_code_of(self.results)
        if status == ExitCode.NO_TESTS and self.sharded is not None and self.sharded.order:
            return ExitCode.OK  # an empty shard of a suite: a matrix job must not fail for it
        return ExitCode.NO_TESTS if status == ExitCode.OK and self.nothing_ran else status

    @property
    def exit_code(self) -> int:
        """The command line's exit status for this call: the verdicts' (`verdicts_code`), decided again by
        the gate."""
        status = self.verdicts_code
        if not self.decides:
            return status if self.stopped_by is not None else ExitCode.OK
        if self.gate is None or self.not_run:
            return status
        return self.gate.decide(status, self.results, sharded=self.sharded is not None)

    @property
    def ok(self) -> bool:
        """Whether at least one case ran and none failed or could not be loaded."""
        return self.exit_code == ExitCode.OK


@dataclass(frozen=True)
class ProbeResult(SuiteResult):
    """The verdicts of a probe of one server (`lint`, `audit`, `fuzz`, `conformance`); `unreached`: the server
    could not be started, reached or listed, so nothing was probed (exit status 2, as a usage error). A probe
    of several servers (`lint`, `audit`) holds the verdicts of those reached; `unreached` is the first that
    was not, `also_unreached` the others."""

    unreached: Unreached | None = None
    also_unreached: tuple[Unreached, ...] = ()

    @property
    def exit_code(self) -> int:
        return ExitCode.USAGE if self.unreached is not None else super().exit_code


def exit_code_of(results: Iterable[CaseResult]) -> ExitCode:
    """USAGE when any case could not be loaded or run as written, FAILED when any failed, NO_TESTS when
    there is no result at all, else OK (every case passed or was skipped)."""
    statuses = {str(result.status) for result in results}
    if "ERROR" in statuses:
        return ExitCode.USAGE
    if "FAIL" in statuses:
        return ExitCode.FAILED
    return ExitCode.OK if statuses else ExitCode.NO_TESTS


@dataclass(frozen=True)
class Collection:
    """What a suite holds after selection: cases and the documents that did not load, in file order;
    `sharded` when --shard took part of it; `resume` when --resume left out what a stopped run finished;
    `maxfail`: the failed cases after which its run stops (0: never)."""

    items: tuple[Case | LoadError, ...]
    sharded: Sharded | None = None
    resume: Resume | None = None
    maxfail: int = 0

    @property
    def cases(self) -> list[Case]:
        from toolproof.model.server_case import Case

        return [item for item in self.items if isinstance(item, Case)]

    @property
    def errors(self) -> list[LoadError]:
        from toolproof.model.server_case import Case

        return [item for item in self.items if not isinstance(item, Case)]

    @property
    def starts_no_server(self) -> bool:
        """Whether no case may start or contact a server (every case skipped, or a trajectory): such a run
        goes in order, without an event loop (`run/serverless_suite.py`)."""
        from toolproof.run.serverless_suite import starts_no_server

        return starts_no_server(self.items)
