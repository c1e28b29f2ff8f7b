"""Probe verdicts in the project's result model, and the cases probes write."""

from __future__ import annotations

from pathlib import Path

from toolproof.mcp.spec import ConnectSpec
from toolproof.model.result import Status
from toolproof.model.server_config import Transport
from toolproof.probe.cases import render, server_block
from toolproof.probe.lint import lint_results, stdout_result
from toolproof.probe.lint_rules import Finding, Severity
from toolproof.probe.tools import is_destructive, skip_reason

ERROR = Finding("a", "E101", Severity.ERROR, "no description", "description", "empty-description")
WARNING = Finding("b", "W116", Severity.WARNING, "no returns", "description", "undescribed-output")
TOOLS = [{"name": "a"}, {"name": "b"}, {"name": "c"}]


def test_errors_fail_warnings_pass_with_the_warning_clean_tools_pass() -> None:
    results = lint_results(TOOLS, [ERROR, WARNING], Path("srv"), threshold=0)
    assert [(r.name.split(":")[0], r.status, r.warnings) for r in results] == [
        ("a E101", Status.FAIL, ()),
        ("b W116", Status.PASS, ("W116 at description",)),
        ("c", Status.PASS, ()),
    ]
    assert results[0].failure is not None and results[0].failure.check == "E101"


def test_stray_stdout_is_a_passing_result_with_the_first_line_stripped_of_escapes() -> None:
    result = stdout_result(["\x1b[1;32mready\x1b[0m", "DEBUG x"], Path("srv"))
    assert result.status is Status.PASS
    assert result.warnings == (
        "the server wrote 2 lines to stdout that are not MCP messages; the first: ready",
    )


def test_over_the_threshold_every_finding_fails() -> None:
    results = lint_results(TOOLS, [WARNING, WARNING], Path("srv"), threshold=1)
    assert {r.status for r in results if r.name.startswith("b ")} == {Status.FAIL}
    assert "over --threshold 1" in (results[0].failure.message if results[0].failure else "")


def test_server_blocks_never_hold_header_values() -> None:
    stdio = ConnectSpec(transport=Transport.STDIO, command="python", args=("s.py", "--x"))
    assert server_block(stdio) == {"command": "python", "args": ["s.py", "--x"]}
    http = ConnectSpec(transport=Transport.HTTP, url="http://h/mcp", headers={"X-Api-Key": "secret-value"})
    block = server_block(http)
    assert block == {"transport": "http", "url": "http://h/mcp", "headers": {"X-Api-Key": "${X_API_KEY}"}}
    assert "secret-value" not in render({"server": block})


def test_a_tool_that_may_write_is_skipped_naming_the_annotation_that_says_so() -> None:
    destructive = {"name": "d", "annotations": {"destructiveHint": True, "readOnlyHint": False}}
    writes = {"name": "w", "annotations": {"destructiveHint": False, "readOnlyHint": False}}
    assert skip_reason(destructive).startswith("may write (annotated destructiveHint: true): ")
    assert skip_reason(writes) == "may write (annotated readOnlyHint: false): --include-writes calls it"
    assert not is_destructive({"name": "r", "annotations": {"destructiveHint": False, "readOnlyHint": True}})
