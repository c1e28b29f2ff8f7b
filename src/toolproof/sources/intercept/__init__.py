"""Live trajectories: proxy an agent's stdio session with its MCP server and record the tool calls.

`intercept` runs the session (see `proxy`); its `Interception.observed()` is the run it recorded, which
`run.trajectory.intercepted_verdict` checks.
"""

from __future__ import annotations

from toolproof.sources.intercept.fds import FdReader, FdWriter
from toolproof.sources.intercept.proxy import Interception, intercept
from toolproof.sources.intercept.recorder import CallRecorder, RecordedCall, audit_log

__all__ = [
    "CallRecorder",
    "FdReader",
    "FdWriter",
    "Interception",
    "RecordedCall",
    "audit_log",
    "intercept",
]
