"""Trajectory cases: checks on a recorded list of tool calls; no server is started."""

from __future__ import annotations

from pathlib import Path

from toolproof.check.trajectory import check_trajectory, parse_audit_log
from toolproof.load.regular_file import UnreadableFile, read_regular_file
from toolproof.model.result import Failure, FailureKind
from toolproof.model.suite import TraceEntry, TrajectoryBlock
from toolproof.run.template import fill

MAX_AUDIT_LOG_BYTES = 256 * 1024 * 1024
"""The largest audit log read (only regular files are read: a FIFO never blocks the run)."""


def run_trajectory(block: TrajectoryBlock, suite_dir: Path, fixture: Path | None) -> Failure | None:
    """Check the block's inline trace, or its audit log (a relative path is looked up from the working
    directory first, then from the case file's directory)."""
    trace: list[TraceEntry] = list(block.trace or [])
    if block.audit_log:
        path = Path(fill(block.audit_log, {"fixture": str(fixture)} if fixture else {}))
        if not path.is_absolute() and not path.exists():
            path = suite_dir / path
        try:
            trace = parse_audit_log(read_regular_file(path, MAX_AUDIT_LOG_BYTES).decode("utf-8"))
        except UnreadableFile as error:
            return Failure(kind=FailureKind.CONFIG, message=f"cannot read audit_log {path}: {error.reason}")
        except ValueError as error:
            return Failure(kind=FailureKind.CONFIG, message=f"audit_log {path}: {error}")
    return check_trajectory(block.checks, trace)
