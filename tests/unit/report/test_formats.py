"""The table of output formats: a row added to `FORMATS` is a flag of every report command and a sink of
`Reports`, with nothing else to wire; the built-in rows keep the flags they had."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import pytest
from tests.unit.report.synthetic import SECRET, feed, sample

from toolproof.api import Reports
from toolproof.cli import main
from toolproof.cli.options import add_output_options
from toolproof.model.events import CaseFinished, Event, RunFinished
from toolproof.model.result import Status
from toolproof.report import formats
from toolproof.report.formats import Context, Format
from toolproof.report.json_report import JsonReport


class TapReport:
    """A format made up for the test: one TAP line per case, written when the run finishes."""

    def __init__(self, path: str | Path, context: Context) -> None:
        self.path, self.context, self.lines = Path(path), context, list[str]()

    def handle(self, event: Event) -> None:
        if isinstance(event, CaseFinished):
            ok = "ok" if event.result.status in (Status.PASS, Status.SKIP) else "not ok"
            self.lines.append(f"{ok} {event.index + 1} - {event.result.name}")
        elif isinstance(event, RunFinished):
            self.path.write_text(f"1..{len(event.results)}\n" + "\n".join(self.lines) + "\n")


made: list[TapReport] = []


def _tap(destination: str | Path, context: Context) -> TapReport:
    made.append(TapReport(destination, context))
    return made[-1]


@pytest.fixture
def tap(monkeypatch: pytest.MonkeyPatch) -> Format:
    row = Format("tap", "--tap", "write a TAP report", _tap)
    monkeypatch.setattr(formats, "FORMATS", (*formats.FORMATS, row))
    made.clear()
    return row


def test_a_row_is_a_flag_and_a_sink_of_a_real_command(
    tap: Format, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    saved = tmp_path / "saved.json"
    feed(JsonReport(str(saved)), sample())
    out = tmp_path / "run.tap"
    assert main(["report", str(saved), "--tap", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines[0] == "1..4" and len(lines) == 5
    assert "not ok" in out.read_text() and "ok 1 - get time" in lines


def test_a_row_gets_the_secrets_and_the_title(tap: Format, tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    add_output_options(parser)
    args = parser.parse_args(["--tap", str(tmp_path / "a.tap"), "--json", str(tmp_path / "a.json")])
    assert args.tap == tmp_path / "a.tap"
    reports = Reports(files={"tap": args.tap, "json": args.json}, title="t")
    feed(reports.sink([SECRET]), sample())
    assert made[0].context == Context(frozenset({SECRET}), "t")
    assert (tmp_path / "a.tap").is_file() and (tmp_path / "a.json").is_file()


def test_a_format_without_a_destination_is_not_made(tap: Format) -> None:
    feed(Reports().sink(()), sample())
    assert made == []


def test_the_built_in_rows_keep_their_flags() -> None:
    assert [row.flag for row in formats.FORMATS] == [
        "--json",
        "--junit",
        "--markdown",
        "--html",
        "--badge",
        "--save-baseline",
    ]


def test_a_field_and_the_step_summaries_are_markdown_destinations(tmp_path: Path) -> None:
    field, summary = tmp_path / "a.md", tmp_path / "summary.md"
    reports = Reports(markdown=field, step_summaries=(summary,))
    assert reports.destinations("markdown") == [field, summary]
    feed(reports.sink(()), sample())
    assert field.read_text() == summary.read_text() != ""


def test_a_destination_for_no_format_is_a_warning_every_report_gets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "r.json"
    reports = Reports(terminal=io.StringIO(), files={"tpa": tmp_path / "out.tap", "json": report})
    feed(reports.sink(()), sample())
    said = "no report format is named 'tpa'; not written (formats: json, junit, markdown, html, badge, "
    assert json.loads(report.read_text())["warnings"][0].startswith(said)
    assert capsys.readouterr().err.startswith(f"toolproof: {said}")
    assert not (tmp_path / "out.tap").exists()
