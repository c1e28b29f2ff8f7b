"""A case that passed with warnings (a lint warning, lines on stdout that are not MCP): every report shows the
warning on the case and counts the case as passed, with warnings."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.unit.report.synthetic import feed

from toolproof.model.result import CaseResult, Failure, FailureKind, Status
from toolproof.report.html import check_document, render_html
from toolproof.report.json_report import JsonReport
from toolproof.report.junit import JUnitReport
from toolproof.report.markdown import MarkdownReport
from toolproof.report.terminal import TerminalReport

WARNING = "the server wrote a line to stdout that is not an MCP message: ready"
SUITE = Path("suites/s.yaml")


def results() -> list[CaseResult]:
    return [
        CaseResult(name="chatty", file=SUITE, line=1, status=Status.PASS, warnings=(WARNING,)),
        CaseResult(name="quiet", file=SUITE, line=5, status=Status.PASS),
        CaseResult(
            name="broken",
            file=SUITE,
            line=9,
            status=Status.FAIL,
            failure=Failure(kind=FailureKind.EXPECTATION, message="no"),
            warnings=(WARNING,),
        ),
    ]


def test_terminal_marks_the_case_and_prints_the_warning_under_it() -> None:
    out = io.StringIO()
    feed(TerminalReport(stdout=out, stderr=io.StringIO(), env={}), results())
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("WARN  chatty")
    assert lines[1].strip() == f"warning: {WARNING}"
    assert lines[2].startswith("PASS  quiet")
    assert f"warning: {WARNING}" in lines[4]  # the failed case shows it too
    assert lines[-1].startswith("2 passed (1 with warning), 1 failed")


def test_json_carries_the_warnings_of_each_case_and_counts_the_warned(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    feed(JsonReport(path), results())
    document = json.loads(path.read_text(encoding="utf-8"))
    assert [entry["warnings"] for entry in document["results"]] == [[WARNING], [], [WARNING]]
    assert (document["summary"]["passed"], document["summary"]["warned"]) == (2, 1)
    page = render_html(check_document(document, "r.json"))
    assert page.count(WARNING) == 2
    assert '<span class="tag warning">1 warning</span>' in page


def test_html_renders_a_saved_report_written_before_warnings_existed(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    feed(JsonReport(path), results())
    document = json.loads(path.read_text(encoding="utf-8"))
    for entry in document["results"]:
        del entry["warnings"]
    assert WARNING not in render_html(check_document(document, "r.json"))


def test_junit_writes_the_warnings_to_system_out(tmp_path: Path) -> None:
    path = tmp_path / "j.xml"
    feed(JUnitReport(path), results())
    cases = ET.parse(path).getroot().findall(".//testcase")
    assert [case.findtext("system-out") for case in cases] == [
        f"warning: {WARNING}",
        None,
        f"warning: {WARNING}",
    ]
    assert cases[0].find("failure") is None and cases[0].find("skipped") is None


def test_markdown_labels_the_case_and_lists_its_warnings(tmp_path: Path) -> None:
    path = tmp_path / "s.md"
    feed(MarkdownReport(path), results())
    text = path.read_text(encoding="utf-8")
    assert "| PASS (warnings) | chatty |" in text
    assert "2 passed (1 with warning), 1 failed" in text
    assert f"- {WARNING}" in text
