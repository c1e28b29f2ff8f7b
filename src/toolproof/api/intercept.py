"""`intercept`: stand in for a stdio MCP server between an agent and the real one, and check the agent's
session against a trajectory case (the `toolproof intercept` command)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.api.reports import Reports, report_results
from toolproof.api.results import SuiteResult
from toolproof.exit_codes import UsageError

if TYPE_CHECKING:
    from toolproof.model.events import Sink
    from toolproof.model.result import CaseResult
    from toolproof.model.server_case import Case
    from toolproof.sources.intercept import Interception


def intercept(
    server: str | Sequence[str],
    trajectory: str | Path,
    *,
    timeout: float | None = None,
    audit_log: str | Path | None = None,
    reports: Reports | None = None,
    sink: Sink | None = None,
) -> SuiteResult:
    """Start the real stdio `server` (a command line, split as a shell would but run without one), pass every
    byte between the agent (this process's stdin and stdout) and it unchanged, record the agent's tools/call
    requests, and when the session ends (or after `timeout` seconds) check them against the first case of
    the file `trajectory`, which holds `trajectory:` checks; write the calls as a JSONL `audit_log`. A case
    that does not load is reported as an ERROR result before any server starts. A stop signal that ended
    the session sets `stopped_by` (after the verdict). Raises UsageError for a bad command, a file without
    a trajectory case, or a server that cannot start."""
    from toolproof.api.probes import command_words
    from toolproof.core.writing import warn, write_best_effort
    from toolproof.run.secrets import run_secrets
    from toolproof.run.trajectory import intercepted_verdict
    from toolproof.sources.intercept import audit_log as audit_lines

    command = command_words(server)
    given = reports or Reports()
    case = _trajectory_case(Path(trajectory))
    if not isinstance(case, tuple):
        session = _proxy(command, timeout)
        note = session.note()
        if note:
            warn(f"intercept: {note}")
        if audit_log is not None:
            write_best_effort(audit_log, audit_lines(session.calls))
        result = intercepted_verdict(case, session, os.environ)
        events = given.sink(run_secrets([case.server], os.environ), sink)
        report_results([result], events, "toolproof intercept", result.duration_s)
        return SuiteResult((result,), result.duration_s, stopped_by=session.stop_signal)
    report_results(case, given.sink((), sink), "toolproof intercept", 0.0)
    return SuiteResult(case)


def _trajectory_case(path: Path) -> Case | tuple[CaseResult, ...]:
    """The file's first case when it loads and is a trajectory, else the ERROR results of what did not
    load; raises UsageError for a file with no case or a first case without a trajectory."""
    from toolproof.load import LoadError, load_file
    from toolproof.model.server_case import TrajectoryBlock
    from toolproof.run.load_errors import load_error_results

    items = load_file(path)
    errors = [item for item in items if isinstance(item, LoadError)]
    if errors:
        return tuple(load_error_results(errors))
    case = items[0] if items else None
    if case is None or isinstance(case, LoadError):
        raise UsageError(f"{path}: no case in the file")
    if not isinstance(case.block, TrajectoryBlock):
        raise UsageError(
            f"{path}:{case.source.line}: {case.name!r} has no trajectory: checks "
            f"(its block is {case.block.kind})"
        )
    return case


def _proxy(command: list[str], timeout_s: float | None) -> Interception:
    """Run the session on this process's stdin and stdout; raises UsageError when the server cannot start."""
    import anyio

    from toolproof.mcp.errors import SpawnFailed
    from toolproof.mcp.process import reap_strays
    from toolproof.sources.intercept import FdReader, FdWriter, intercept

    agent_in, agent_out = FdReader(sys.stdin.fileno()), FdWriter(sys.stdout.fileno())
    try:
        return anyio.run(
            lambda: intercept(command, dict(os.environ), agent_in, agent_out, timeout_s=timeout_s)
        )
    except SpawnFailed as error:
        raise UsageError(f"--server: {error}") from None
    finally:
        agent_out.restore()
        reap_strays()
