"""`conformance`: the protocol checks of one server as a Python call (the `toolproof conformance` command)."""

from __future__ import annotations

import shlex
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolproof.api.reports import Reports, report_results
from toolproof.api.results import SuiteResult, exit_code_of
from toolproof.exit_codes import ExitCode
from toolproof.mcp.spec import HANDSHAKE_ERA

if TYPE_CHECKING:
    from toolproof.mcp.spec import ConnectSpec
    from toolproof.model.events import Sink
    from toolproof.model.result import CaseResult
    from toolproof.probe.conformance.inputs import ProbeInputs
    from toolproof.report.baseline import Entry


@dataclass(frozen=True)
class ConformanceResult(SuiteResult):
    """The checks of one server; `expected`: the baseline (`--baseline FILE`) whose failures are expected: a
    requirement that failed there and fails again does not fail the call (the reports still show it)."""

    expected: Mapping[str, Entry] | None = None

    @property
    def verdicts_code(self) -> int:
        if self.stopped_by is not None:
            return ExitCode.stopped_by(self.stopped_by)
        from toolproof.probe.conformance.expected_failures import as_judged

        return exit_code_of(as_judged(list(self.results), self.expected))


def conformance(
    spec: ConnectSpec,
    *,
    inputs: ProbeInputs | None = None,
    protocol: str = HANDSHAKE_ERA,
    reports: Reports | None = None,
    sink: Sink | None = None,
) -> ConformanceResult:
    """Check the server `spec` names (see `server_spec`) against the protocol rules that hold for every
    server: one result per check, each naming the spec section it enforces, or one ERROR result when the
    server could not be started, reached or initialized (exit status 2). A stop signal (SIGINT, SIGTERM,
    SIGHUP) ends it; the checks made until then are reported, with 128 + N. `inputs` names the tools, prompt
    arguments and template values the checks may use; `protocol` the era or eras to probe in
    (`2025-11-25`, `2026-07-28`, `both`, `auto`); the reports' `baseline` is read as expected failures."""
    from toolproof.api.probes import server_secrets, source_path
    from toolproof.probe.conformance import check_server
    from toolproof.probe.conformance.inputs import ProbeInputs
    from toolproof.run.interrupt import Interrupted, run_until_signal

    server = spec.url or shlex.join([spec.command, *spec.args])
    given = reports or Reports()
    events = given.sink(server_secrets(spec), sink)
    started = time.perf_counter()
    results: list[CaseResult] = []  # filled as checks are made: a stop by signal reports those
    given_inputs = inputs or ProbeInputs()
    outcome = run_until_signal(lambda: check_server(spec, source_path(spec), results, given_inputs, protocol))
    duration = time.perf_counter() - started
    report_results(results, events, f"toolproof conformance {server}", duration)
    stopped = outcome.signal if isinstance(outcome, Interrupted) else None
    return ConformanceResult(tuple(results), duration, stopped_by=stopped, expected=given.baseline)
