"""The HTML report: one self-contained page (styles and script inline, nothing fetched) with the summary,
filters by status and text, and every case with its steps, failure, server stderr and trials.

The page is rendered from the JSON report's document, so a run and a saved `--json` file
(`toolproof report REPORT.json --html OUT`) give the same page.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from importlib.resources import files
from typing import Any, TextIO

import jinja2

from toolproof.core.writing import write_best_effort
from toolproof.model.events import Event, RunFinished, RunStarted
from toolproof.report.baseline import Entry
from toolproof.report.json_report import FORMAT, FORMAT_VERSION, JsonReport

STATUSES = ("PASS", "FAIL", "ERROR", "SKIP")


class ReportFormatError(ValueError):
    """A document that is not a toolproof JSON report of a version this toolproof reads."""


def check_document(document: Any, source: str) -> dict[str, Any]:
    """`document` when it is a toolproof report of a known version. Raises ReportFormatError."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ReportFormatError(f'{source}: not a toolproof JSON report (no "format": "{FORMAT}")')
    version = document.get("format_version")
    if version != FORMAT_VERSION:
        raise ReportFormatError(
            f"{source}: format_version {version!r}; this toolproof reads {FORMAT_VERSION}"
        )
    if not isinstance(document.get("results"), list) or not isinstance(document.get("summary"), dict):
        raise ReportFormatError(f"{source}: `results` must be a list and `summary` an object")
    for index, result in enumerate(document["results"]):
        if not isinstance(result, dict):
            raise ReportFormatError(f"{source}: results[{index}] must be an object, got {result!r:.40}")
    return document


def render_saved(document: Any, source: str) -> str:
    """The page for a saved report `source` held; raises ReportFormatError for one that is not a whole
    toolproof report of a version this toolproof reads (a missing key or a value of the wrong type)."""
    checked = check_document(document, source)
    try:
        return render_html(checked)
    except (jinja2.TemplateError, TypeError, AttributeError, KeyError, ValueError) as error:
        raise ReportFormatError(f"{source}: not a complete toolproof JSON report: {error}") from None


def render_html(document: dict[str, Any]) -> str:
    """The page for a JSON report document."""
    environment = jinja2.Environment(
        autoescape=True, undefined=jinja2.StrictUndefined, keep_trailing_newline=True
    )
    environment.filters["pretty"] = _pretty
    source = files("toolproof.report").joinpath("templates/report.html.j2").read_text(encoding="utf-8")
    template = environment.from_string(source)
    results = document["results"]
    counts = {status: sum(result.get("status") == status for result in results) for status in STATUSES}
    counts["FLAKY"] = sum(bool(result.get("flaky")) for result in results)
    return template.render(report=document, results=results, counts=counts, statuses=STATUSES)


def _pretty(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False)


class HtmlReport:
    """Writes the page to `path` when the run finishes."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        secrets: Iterable[str] = (),
        *,
        baseline: dict[str, Entry] | None = None,
        title: str | None = None,
        stderr: TextIO | None = None,
    ) -> None:
        self._path, self._stderr = path, stderr
        self._json = JsonReport(os.devnull, secrets, baseline=baseline, title=title, stderr=stderr)

    def handle(self, event: Event) -> None:
        if isinstance(event, RunStarted):
            self._json.handle(event)
        elif isinstance(event, RunFinished):
            document = json.loads(self._json.render(event))
            write_best_effort(self._path, render_html(document), atomic=True, stderr=self._stderr)
