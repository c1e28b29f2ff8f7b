"""Trace files and audit logs are read only when they are regular files: a FIFO never blocks the run."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolproof.model.result import FailureKind
from toolproof.model.scenario import ToolsCalled
from toolproof.model.server_case import TrajectoryBlock
from toolproof.run.trajectory import run_trajectory
from toolproof.sources.traces import TraceError, read_traces


def test_a_fifo_or_directory_given_as_a_trace_is_an_error_not_a_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "trace.json"
    os.mkfifo(fifo)
    with pytest.raises(TraceError, match=r"cannot read: a named pipe \(FIFO\)"):
        read_traces(fifo)
    with pytest.raises(TraceError, match="cannot read: a directory"):
        read_traces(tmp_path)


def test_a_fifo_given_as_an_audit_log_is_a_configuration_error(tmp_path: Path) -> None:
    fifo = tmp_path / "audit.jsonl"
    os.mkfifo(fifo)
    block = TrajectoryBlock(checks=(ToolsCalled(tools=("t",)),), audit_log=str(fifo))
    failure = run_trajectory(block, tmp_path, None)
    assert failure is not None and failure.kind is FailureKind.CONFIG
    assert failure.message == f"cannot read audit_log {fifo}: a named pipe (FIFO)"
