"""The JUnit XML report: one `<testsuite>` per suite file under one `<testsuites name="toolproof">`."""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from pathlib import PurePosixPath
from typing import TextIO

from toolproof.core.sanitize import Scrubber
from toolproof.core.writing import write_best_effort
from toolproof.model.events import Event, RunFinished
from toolproof.model.result import CaseResult, Status
from toolproof.report.describe import (
    REPORT_VALUE_CHARS,
    display_name,
    failure_lines,
    shown_failure,
    unique_names,
)
from toolproof.report.reliability import reliability
from toolproof.report.run_notes import RunNotes
from toolproof.report.summary import Summary

# Everything XML 1.0 forbids: C0 controls but tab, newline and CR; surrogates; U+FFFE and U+FFFF.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


class JUnitReport:
    """Writes JUnit XML to `path` when the run finishes.

    A testcase has classname = the suite file path without extension (`/` kept, so `a/b.yaml` and `a.b.yaml`
    differ); name = the case name, `name [2]` for a second case of that name and classname, plus
    ` [trial N]` on every case when the run has several trials; time in seconds; `file` and `line`
    attributes. FAIL gives `<failure>`, ERROR `<error>` (message = first line, type = failure kind,
    text = the full detail, each value cut at 64 KiB with a note of how much was left out), SKIP
    `<skipped message=reason>`; warnings go into `<system-out>` as `warning: ...` lines, a stderr tail into
    `<system-err>`. Cases run as trials give their
    testsuite the properties `pass_at_k` and `pass_up_k` (`capable/cases` and `reliable/cases`, as mcp-assert
    writes them), and each such testcase the properties `trials`, `passed`, `pass_rate` and `flaky`.
    """

    def __init__(
        self, path: str | os.PathLike[str], secrets: Iterable[str] = (), *, stderr: TextIO | None = None
    ) -> None:
        self._path = path
        self._scrub = Scrubber(secrets)
        self._stderr = stderr
        self._notes = RunNotes()

    def handle(self, event: Event) -> None:
        self._notes.note(event)
        if isinstance(event, RunFinished):
            write_best_effort(self._path, self.render(event), stderr=self._stderr)

    def render(self, event: RunFinished) -> str:
        """The XML document for a finished run."""
        root = ET.Element("testsuites", name="toolproof")
        _counts(root, event.results, event.duration_s)
        numbered = any(result.trial > 1 for result in event.results)
        keys = [(_classname(r.file.as_posix()), (r.file, r.line), r.name) for r in event.results]
        by_file: dict[str, list[tuple[CaseResult, str]]] = {}
        for result, name in zip(event.results, unique_names(keys), strict=True):
            by_file.setdefault(result.file.as_posix(), []).append((result, name))
        for file, cases in by_file.items():
            suite = ET.SubElement(root, "testsuite", name=self._text(file))
            _counts(suite, [result for result, _ in cases], sum(result.duration_s for result, _ in cases))
            found = reliability([result for result, _ in cases])
            if found is not None:
                total = len(found.rows)
                _properties(
                    suite, {"pass_at_k": f"{found.capable}/{total}", "pass_up_k": f"{found.reliable}/{total}"}
                )
            for result, name in cases:
                self._testcase(suite, result, display_name(result, numbered=numbered, label=name))
        if notes := self._notes.lines():  # the run's own notes: a suite of no case, named for the run
            run = ET.SubElement(root, "testsuite", name="toolproof run")
            _counts(run, [], 0.0)
            ET.SubElement(run, "system-out").text = self._text("\n".join(notes))
        ET.indent(root)
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"

    def _testcase(self, suite: ET.Element, result: CaseResult, name: str) -> None:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=self._text(_classname(result.file.as_posix())),
            name=self._text(name),
            file=self._text(result.file.as_posix()),
            line=str(result.line),
            time=_seconds(result.duration_s),
        )
        properties: dict[str, str] = {}
        if result.trials is not None:
            stats = result.trials
            properties.update(
                {
                    "trials": str(stats.n),
                    "passed": str(stats.passed),
                    "pass_rate": f"{stats.rate:.4f}",
                    "flaky": "true" if stats.flaky else "false",
                }
            )
        if result.shared_server is not None:  # --reuse-server: cases with the same value shared a server
            properties["shared_server"] = str(result.shared_server)
        if result.protocol is not None:  # the protocol revision spoken with the case's server
            properties["protocol"] = result.protocol
        if properties:
            _properties(case, properties)
        if result.status is Status.SKIP:
            skipped = ET.SubElement(case, "skipped")
            if result.reason:
                skipped.set("message", self._text(result.reason))
        elif result.status in (Status.FAIL, Status.ERROR):
            tag = "failure" if result.status is Status.FAIL else "error"
            element = ET.SubElement(case, tag)
            failure = shown_failure(result)  # the stderr goes into <system-err>
            lines = (
                failure_lines(failure, self._scrub, max_chars=REPORT_VALUE_CHARS, details=True)
                if failure
                else []
            )
            if failure:
                element.set("message", _xml(lines[0]))
                element.set("type", failure.kind.value)
            else:
                element.set("message", result.status.value.lower())
            location = self._scrub(f"at {result.file.as_posix()}:{result.line}")
            element.text = _xml("\n".join([*lines, location]))
        if result.warnings:
            warnings = "\n".join(f"warning: {warning}" for warning in result.warnings)
            ET.SubElement(case, "system-out").text = self._text(warnings)
        if result.stderr.strip():
            ET.SubElement(case, "system-err").text = self._text(result.stderr)

    def _text(self, text: str) -> str:
        return _xml(self._scrub(text))


def _counts(element: ET.Element, results: Sequence[CaseResult], duration_s: float) -> None:
    summary = Summary.of(results, duration_s)
    element.set("tests", str(summary.total))
    element.set("failures", str(summary.failed))
    element.set("errors", str(summary.errors))
    element.set("skipped", str(summary.skipped))
    element.set("time", _seconds(duration_s))


def _properties(element: ET.Element, values: dict[str, str]) -> None:
    properties = ET.SubElement(element, "properties")
    for name, value in values.items():
        ET.SubElement(properties, "property", name=name, value=value)


def _classname(file: str) -> str:
    """The suite file's path without its extension or a leading `/`: `suites/time.yaml` is `suites/time`."""
    parts = PurePosixPath(file).with_suffix("").parts
    return "/".join(part for part in parts if part not in ("/", "."))


def _seconds(seconds: float) -> str:
    return f"{seconds:.3f}"


def _xml(text: str) -> str:
    return _NOT_XML.sub("", text)
