"""The recorded agent runs of a pytest session, and which of them each agent case is checked against.

Runs are read once, when the first agent case runs; the pairing is `toolproof check`'s (`pair`), over the
agent cases collected in the session.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from toolproof.model.result import CaseResult, Failure, FailureKind, Status
from toolproof.model.scenario import AgentCase
from toolproof.model.transcript import Transcript


class RecordedRuns:
    """The traces of `--toolproof-trace` / `toolproof_traces` and the agent cases they are paired with."""

    def __init__(self, traces: tuple[Path, ...]) -> None:
        self.traces = traces
        self.cases: list[AgentCase] = []
        self._pairs: dict[int, list[Transcript]] | None = None
        self._problem: str | None = None

    def add(self, case: AgentCase) -> None:
        self.cases.append(case)
        self._pairs = None

    def check(self, case: AgentCase) -> list[CaseResult]:
        """The case's results against its runs, one per run (as `check --by-case`); a skip without one."""
        from toolproof.run.trace_suite import Clocks, check_case

        pairs = self._paired()
        if self._problem is not None:
            failure = Failure(kind=FailureKind.CONFIG, message=self._problem)
            where = {"file": case.source.file, "line": case.source.line}
            return [CaseResult(name=case.name, status=Status.ERROR, failure=failure, **where)]
        index = next(number for number, each in enumerate(self.cases) if each is case)
        zone = datetime.now().astimezone().tzinfo
        assert zone is not None
        return check_case(case, pairs[index], Clocks(zone), by_case=True)

    def _paired(self) -> dict[int, list[Transcript]]:
        if self._pairs is None:
            from toolproof.run.trace_suite import pair

            self._pairs = pair(self.cases, self._read())
        return self._pairs

    def _read(self) -> list[Transcript]:
        from toolproof.exit_codes import UsageError
        from toolproof.run.trace_inputs import read_runs

        try:
            runs, _ = read_runs(list(self.traces), None, None)
        except UsageError as error:
            self._problem = f"recorded runs: {error}"
            return []
        return runs


RECORDED = pytest.StashKey[RecordedRuns]()
