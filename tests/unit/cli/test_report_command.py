"""`toolproof report` on saved files that are not whole reports: exit 2 with the file named, no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolproof.cli import main

HEADER = {"format": "toolproof-report", "format_version": 1, "summary": {}}


@pytest.mark.parametrize(
    "document",
    [
        {**HEADER, "results": [None]},
        {**HEADER, "results": [5]},
        {**HEADER, "results": []},
        {**HEADER, "results": [{"status": "PASS", "steps": 5}]},
    ],
)
def test_report_of_a_truncated_or_edited_report_is_a_usage_error(
    tmp_path: Path, document: object, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "report.json"
    source.write_text(json.dumps(document))
    assert main(["report", str(source), "--html", str(tmp_path / "out.html")]) == 2
    err = capsys.readouterr().err
    assert f"toolproof report: {source}:" in err and "Traceback" not in err
    assert not (tmp_path / "out.html").exists()
