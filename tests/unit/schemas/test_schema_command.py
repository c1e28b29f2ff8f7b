"""`toolproof schema FORMAT [FILE...]`: print a schema, or check files against it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from toolproof.cli import main
from toolproof.schemas import FORMATS, build


@pytest.mark.parametrize("name", list(FORMATS))
def test_prints_the_schema_of_each_format(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", name]) == 0
    assert json.loads(capsys.readouterr().out) == build(name)


def test_checks_files_and_says_where_each_breaks_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.yaml"
    good.write_text("name: ok\nserver: {command: srv}\nassert: {tool: t, expect: {not_error: true}}\n")
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "name: x\nserver: {command: srv, transprot: stdio}\nassert: {tool: t, expect: {min_results: x}}\n"
    )
    assert main(["schema", "mcp-assert", str(good)]) == 0
    assert capsys.readouterr().out == ""
    assert main(["schema", "mcp-assert", str(good), str(bad)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"{bad}:2:24: server.transprot: unknown key (did you mean 'transport'?)",
        f"{bad}:3:28: assert.expect.min_results: 'x' is not of type integer or null",
    ]


def test_an_unknown_format_or_a_missing_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["schema", "mcp-assert", str(tmp_path / "missing.yaml")]) == 2
    assert "missing.yaml: no such file" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stopped:
        main(["schema", "openapi"])
    assert stopped.value.code == 2


def test_a_reader_that_goes_away_early_is_no_error() -> None:
    command = [sys.executable, "-m", "toolproof", "schema", "mcp-assert"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.readline()
        process.stdout.close()
        assert process.wait(timeout=30) == 0
        assert process.stderr.read() == b""
