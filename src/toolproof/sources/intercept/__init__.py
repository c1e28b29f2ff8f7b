"""Live trajectories: proxy an agent's stdio session with its MCP server, record the tool calls, check them.

`intercept` runs the session (see `proxy`); `verdict` checks what it recorded against a trajectory case.
"""

from __future__ import annotations

from collections.abc import Mapping

from toolproof.check.trajectory import check_trajectory
from toolproof.model.result import CaseResult, Status
from toolproof.model.suite import Case, TrajectoryBlock
from toolproof.sources.intercept.fds import FdReader, FdWriter
from toolproof.sources.intercept.proxy import Interception, intercept
from toolproof.sources.intercept.recorder import CallRecorder, RecordedCall, audit_log
from toolproof.sources.server import skip_reason

__all__ = [
    "CallRecorder",
    "FdReader",
    "FdWriter",
    "Interception",
    "RecordedCall",
    "audit_log",
    "intercept",
    "verdict",
]


def verdict(case: Case, session: Interception, environ: Mapping[str, str]) -> CaseResult:
    """The case's trajectory checks on the calls the session recorded (SKIP as the case says)."""
    assert isinstance(case.block, TrajectoryBlock)
    reason = skip_reason(case, environ)
    trace = [call.trace_entry() for call in session.calls]
    failure = None if reason else check_trajectory(case.block.checks, trace)
    return CaseResult(
        name=case.name,
        file=case.source.file,
        line=case.source.line,
        status=Status.SKIP if reason else Status.FAIL if failure else Status.PASS,
        failure=failure,
        reason=reason,
        duration_s=session.duration_s,
    )
