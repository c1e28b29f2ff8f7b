"""Trajectory cases: checks on a recorded list of tool calls (inline, an audit log, or an intercepted
session); no server is started."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.check.scenario import first_failure
from toolproof.core.expressions import Clock
from toolproof.core.regular_file import UnreadableFile, read_regular_file
from toolproof.core.template import fill
from toolproof.model.result import CaseResult, Failure, FailureKind, Status
from toolproof.model.server_case import Case, TrajectoryBlock
from toolproof.model.transcript import ToolCall, Transcript
from toolproof.run.skip import skip_reason
from toolproof.sources.traces.audit_log import calls_only, parse_audit_log

if TYPE_CHECKING:  # the proxy loads the MCP SDK, which a trajectory case does without
    from toolproof.sources.intercept import Interception

MAX_AUDIT_LOG_BYTES = 256 * 1024 * 1024
"""The largest audit log read (only regular files are read: a FIFO never blocks the run)."""


def run_trajectory(block: TrajectoryBlock, suite_dir: Path, fixture: Path | None) -> Failure | None:
    """Check the block's inline trace, or its audit log (a relative path is looked up from the working
    directory first, then from the case file's directory)."""
    run = calls_only(
        ToolCall(tool=entry.tool, arguments=entry.args, position=position)
        for position, entry in enumerate(block.trace or [])
    )
    if block.audit_log:
        written = Path(fill(block.audit_log, {"fixture": str(fixture)} if fixture else {}))
        path = written if written.is_absolute() or written.exists() else suite_dir / written
        try:
            text = read_regular_file(path, MAX_AUDIT_LOG_BYTES).decode("utf-8")
            run = calls_only(parse_audit_log(text), str(path))
        except UnreadableFile as error:
            tried = "" if path is written else f" (nor {written} in the working directory {Path.cwd()})"
            message = f"cannot read audit_log {path}: {error.reason}{tried}"
            return Failure(kind=FailureKind.CONFIG, message=message)
        except ValueError as error:
            return Failure(kind=FailureKind.CONFIG, message=f"audit_log {path}: {error}")
    return _checked(block, run)


def _checked(block: TrajectoryBlock, run: Transcript) -> Failure | None:
    """The first of the block's checks that the run's calls fail, as the agent checks check a recorded run."""
    now = datetime.now().astimezone()
    return first_failure(block.checks, run, Clock(now, now.tzinfo or UTC))


def intercepted_verdict(case: Case, session: Interception, environ: Mapping[str, str]) -> CaseResult:
    """The case's trajectory checks on the calls the session recorded (SKIP as the case says)."""
    assert isinstance(case.block, TrajectoryBlock)
    reason = skip_reason(case, environ)
    failure = None if reason else _checked(case.block, session.observed())
    return CaseResult(
        name=case.name,
        file=case.source.file,
        line=case.source.line,
        status=Status.SKIP if reason else Status.FAIL if failure else Status.PASS,
        failure=failure,
        reason=reason,
        duration_s=session.duration_s,
    )
