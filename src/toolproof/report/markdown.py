"""The Markdown report, appended to a file as mcp-assert appends it (and so to `$GITHUB_STEP_SUMMARY`): a
summary line, a status table, failure details in `<details>`, a reliability table when cases ran as trials,
and the comparison with a baseline when there is one."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

from toolproof.core.sanitize import Scrubber
from toolproof.core.writing import warn
from toolproof.model.events import Event, RunFinished
from toolproof.model.result import CaseResult, Status
from toolproof.report.baseline import Entry, compare
from toolproof.report.describe import case_ids, failure_lines, format_duration, shown_failure
from toolproof.report.reliability import flaky_label, reliability
from toolproof.report.summary import Summary

_DETAIL_CHARS = 4000  # of one failure's details in the page


class MarkdownReport:
    """Appends the run's Markdown to `path` when it finishes; a file that cannot be written is warned of."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        secrets: Iterable[str] = (),
        *,
        title: str = "toolproof",
        baseline: dict[str, Entry] | None = None,
        stderr: TextIO | None = None,
    ) -> None:
        self._path, self._scrub, self._title = Path(path), Scrubber(secrets), title
        self._baseline, self._stderr = baseline, stderr

    def handle(self, event: Event) -> None:
        if not isinstance(event, RunFinished):
            return
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            with self._path.open("a", encoding="utf-8") as stream:
                stream.write(self.render(event))
        except OSError as error:
            warn(f"could not write {self._path}: {error.strerror or error}", self._stderr)

    def render(self, event: RunFinished) -> str:
        results = event.results
        summary = Summary.of(results, event.duration_s)
        counted = summary.total - summary.skipped
        parts = [summary.passed_text, f"{summary.failed} failed"]
        parts += [f"{summary.errors} error{'' if summary.errors == 1 else 's'}"] if summary.errors else []
        parts += [f"{summary.skipped} skipped"] if summary.skipped else []
        lines = [
            f"### {self._title}: {summary.passed}/{counted} passed",
            "",
            f"{', '.join(parts)} in {format_duration(summary.duration_s)}",
            "",
            "| Status | Case | Duration |",
            "|--------|------|----------|",
        ]
        for result in results:
            warned = "warnings" if result.warnings else ""
            labels = [label for label in (flaky_label(result), warned) if label]
            status = result.status.value + (f" ({', '.join(labels)})" if labels else "")
            lines.append(f"| {status} | {self._cell(result.name)} | {format_duration(result.duration_s)} |")
        lines.append("")
        lines += self._failures(results)
        lines += self._warnings(results)
        lines += self._reliability(results)
        lines += self._comparison(results)
        return "\n".join(lines) + "\n"

    def _failures(self, results: list[CaseResult]) -> list[str]:
        bad = [
            (result, node_id)
            for result, node_id in zip(results, case_ids(results), strict=True)
            if result.status in (Status.FAIL, Status.ERROR)
        ]
        if not bad:
            return []
        lines = ["<details><summary>Failure details</summary>", ""]
        for result, node_id in bad:
            failure = shown_failure(result)
            text = "\n".join(failure_lines(failure, self._scrub)) if failure else result.status.value
            if result.stderr.strip():
                text += "\nserver stderr:\n" + self._scrub(result.stderr)
            fence = "````" if "```" in text else "```"
            lines += [f"**{self._cell(node_id)}**", fence, text[:_DETAIL_CHARS], fence, ""]
        return [*lines, "</details>", ""]

    def _warnings(self, results: list[CaseResult]) -> list[str]:
        cases = zip(results, case_ids(results), strict=True)
        warned = [(result, node_id) for result, node_id in cases if result.warnings]
        if not warned:
            return []
        lines = ["<details><summary>Warnings</summary>", ""]
        for result, node_id in warned:
            lines += [f"**{self._cell(node_id)}**", ""]
            lines += [f"- {self._cell(warning)}" for warning in result.warnings]
            lines.append("")
        return [*lines, "</details>", ""]

    def _reliability(self, results: list[CaseResult]) -> list[str]:
        found = reliability(results)
        if found is None:
            return []
        lines = [
            "### Reliability",
            "",
            "| Case | Trials | Passed | Pass rate | pass@k | pass^k | Flaky |",
            "|------|--------|--------|-----------|--------|--------|-------|",
        ]
        for result, stats in found.rows:
            lines.append(
                f"| {self._cell(result.name)} | {stats.n} | {stats.passed} | {stats.rate:.0%} "
                f"| {'YES' if stats.passed else 'NO'} | {'YES' if stats.passed == stats.n else 'NO'} "
                f"| {'yes' if stats.flaky else ''} |"
            )
        return [*lines, "", f"**{found.line()}**", ""]

    def _comparison(self, results: list[CaseResult]) -> list[str]:
        if self._baseline is None:
            return []
        found = compare(self._baseline, results)
        lines = ["### Against the baseline", ""]
        if not (found.regressions or found.new or found.removed):
            return [*lines, "No regressions, no new or removed cases.", ""]
        lines += [f"- regression: {self._cell(each.name)} ({each.why})" for each in found.regressions]
        lines += [f"- new: {self._cell(name)}" for name in found.new]
        lines += [f"- removed: {self._cell(name)}" for name in found.removed]
        return [*lines, ""]

    def _cell(self, text: str) -> str:
        """Text safe inside a table cell: one line, pipes and angle brackets escaped."""
        one = " ".join(self._scrub(text).split())
        return one.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")
