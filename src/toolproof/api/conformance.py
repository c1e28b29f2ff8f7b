"""`conformance`: the protocol checks of one server as a Python call (the `toolproof conformance` command)."""

from __future__ import annotations

import shlex
import time
from typing import TYPE_CHECKING

from toolproof.api.reports import Reports, report_results
from toolproof.api.results import SuiteResult

if TYPE_CHECKING:
    from toolproof.mcp.spec import ConnectSpec
    from toolproof.model.events import Sink
    from toolproof.model.result import CaseResult


def conformance(
    spec: ConnectSpec, *, reports: Reports | None = None, sink: Sink | None = None
) -> SuiteResult:
    """Check the server `spec` names (see `server_spec`) against the protocol rules that hold for every
    server: one result per check, each naming the spec section it enforces, or one ERROR result when the
    server could not be started, reached or initialized (exit status 2). A stop signal (SIGINT, SIGTERM,
    SIGHUP) ends it; the checks made until then are reported, with 128 + N."""
    from toolproof.api.probes import server_secrets, source_path
    from toolproof.probe.conformance import check_server
    from toolproof.run.interrupt import Interrupted, run_until_signal

    server = spec.url or shlex.join([spec.command, *spec.args])
    events = (reports or Reports()).sink(server_secrets(spec), sink)
    started = time.perf_counter()
    results: list[CaseResult] = []  # filled as checks are made: a stop by signal reports those
    outcome = run_until_signal(lambda: check_server(spec, source_path(spec), results))
    duration = time.perf_counter() - started
    report_results(results, events, f"toolproof conformance {server}", duration)
    stopped = outcome.signal if isinstance(outcome, Interrupted) else None
    return SuiteResult(tuple(results), duration, stopped_by=stopped)
