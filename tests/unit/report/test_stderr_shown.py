"""The server's stderr under a failure: shown once (not also in the failure's message), and a Rich-formatted
traceback shows the lines that carry its exception, not its frames."""

from __future__ import annotations

import io
from pathlib import Path

from tests.unit.report.synthetic import feed

from toolproof.core.sanitize import unframed_lines
from toolproof.mcp.errors import classify, stderr_hint
from toolproof.mcp.process import SpawnFailed
from toolproof.model.result import CaseResult, Status
from toolproof.report.describe import shown_failure
from toolproof.report.terminal import TerminalReport

# What Rich prints (width 100, cut here) for an exception raised inside a task group.
RICH = """\
╭─────────────────────────────── Traceback (most recent call last) ────────────────────────────────╮
│ in <module>:10                                                                                   │
╰──────────────────────────────────────────────────────────────────────────────────────────────────╯
ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)

╭─────────────────────────────────────────── Sub-exception ────────────────────────────────────────╮
│ ╭───────────────────────────── Traceback (most recent call last) ─────────────────────────────╮ │
│ │ in <module>:8                                                                                │ │
│ │ in load:5                                                                                    │ │
│ ╰──────────────────────────────────────────────────────────────────────────────────────────────╯ │
│ FileNotFoundError: config file /etc/notes.toml not found                                         │
╰──────────────────────────────────────────────────────────────────────────────────────────────────╯
"""
EXCEPTION = "FileNotFoundError: config file /etc/notes.toml not found"


def test_frames_go_and_framed_text_keeps_only_its_text() -> None:
    lines = unframed_lines(RICH)
    assert lines[-2:] == [EXCEPTION, ""]
    assert "Sub-exception" in lines and "in load:5" in lines
    assert not [line for line in lines if "─" in line or "│" in line]
    assert unframed_lines("  indented\tline\nplain") == ["  indented\tline", "plain"]


def test_the_hint_in_a_message_carries_the_exception() -> None:
    assert stderr_hint(RICH).endswith(f"in load:5 | {EXCEPTION}")


def failed_with_stderr(stderr: str) -> CaseResult:
    failure = classify(SpawnFailed("the server exited with code 1"), during="initialize", stderr=stderr)
    return CaseResult(name="c", file=Path("s.yaml"), status=Status.FAIL, failure=failure, stderr=stderr)


def test_the_stderr_is_printed_once_under_the_failure() -> None:
    result = failed_with_stderr("starting\npanic: database is locked\n")
    assert result.failure is not None
    assert result.failure.message.endswith("(stderr: starting | panic: database is locked)")
    shown = shown_failure(result)
    assert shown is not None and shown.message == "initialize: the server exited with code 1"
    out = io.StringIO()
    feed(TerminalReport(stdout=out, stderr=io.StringIO(), env={}), [result])
    assert out.getvalue().count("panic: database is locked") == 1


def test_a_stderr_that_no_longer_holds_the_hint_keeps_it_in_the_message() -> None:
    result = failed_with_stderr("panic: database is locked\n")
    moved = result.model_copy(update={"stderr": "something else\n"})
    assert shown_failure(moved) == moved.failure


def test_the_terminal_shows_the_exception_of_a_rich_traceback() -> None:
    out = io.StringIO()
    feed(TerminalReport(stdout=out, stderr=io.StringIO(), env={}), [failed_with_stderr(RICH)])
    printed = out.getvalue()
    assert f"        {EXCEPTION}\n" in printed
    assert printed.count(EXCEPTION) == 1
    assert "╰" not in printed
