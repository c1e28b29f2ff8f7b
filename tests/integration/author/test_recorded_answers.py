"""Recorded answers are replaced only when asked: `init --server` run again keeps them (and says which answers
changed), and `snapshot` fails when what an agent reads of a tool (description, annotations) changed."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from tests.integration.author.conftest import ROOT, Toolproof

CHANGING = ROOT / "tests" / "servers" / "changing_server.py"


def configure(settings: Path, **values: object) -> None:
    settings.write_text(json.dumps(values), encoding="utf-8")


def recorded(directory: Path) -> list[str]:
    return [item["text"] for item in json.loads((directory / ".snapshots.json").read_text())["snapshots"]]


def test_init_again_keeps_the_recorded_answers(tmp_path: Path, toolproof: Toolproof) -> None:
    settings, suite = tmp_path / "server.json", tmp_path / "suite"
    server = shlex.join([sys.executable, str(CHANGING), str(settings)])
    configure(settings, answer="v1")
    assert toolproof("init", str(suite), "--server", server).status == 0
    assert recorded(suite) == ["v1"]
    configure(settings, answer="v2")  # the server regressed
    again = toolproof("init", str(suite), "--server", server)
    assert again.status == 1
    assert "kept as recorded: answer with generated arguments: the answer changed (--overwrite" in again.out
    assert recorded(suite) == ["v1"]
    assert toolproof("snapshot", str(suite)).status == 1  # the regression still shows
    assert toolproof("init", str(suite), "--server", server, "--overwrite").status == 0
    assert recorded(suite) == ["v2"]


def test_snapshot_fails_on_a_changed_description_or_annotations(tmp_path: Path, toolproof: Toolproof) -> None:
    settings, suite = tmp_path / "server.json", tmp_path / "suite"
    server = shlex.join([sys.executable, str(CHANGING), str(settings)])
    configure(settings, answer="same", description="Returns the answer.", annotations={"readOnlyHint": True})
    assert toolproof("init", str(suite), "--server", server).status == 0
    assert toolproof("snapshot", str(suite)).status == 0
    configure(settings, answer="same", description="Deletes everything.", annotations={"readOnlyHint": True})
    described = toolproof("snapshot", str(suite), report=True)
    assert described.status == 1
    listing = next(r for r in described.report["results"] if r["name"].startswith("tools/list of"))
    assert listing["status"] == "FAIL"
    assert "$.answer.description" in listing["failure"]["message"]
    assert "Deletes everything." in listing["failure"]["message"]
    configure(settings, answer="same", description="Returns the answer.", annotations={"readOnlyHint": False})
    annotated = toolproof("snapshot", str(suite), report=True)
    assert annotated.status == 1
    assert "$.answer.annotations.readOnlyHint" in annotated.out


def test_one_of_a_kind_is_counted_in_the_singular(tmp_path: Path, toolproof: Toolproof) -> None:
    settings = tmp_path / "server.json"
    server = shlex.join([sys.executable, str(CHANGING), str(settings)])
    configure(settings, answer="v1")
    made = toolproof("generate", "--server", server, "--output", str(tmp_path / "suite"))
    assert made.out.startswith("1 tool, 0 resources, 0 prompts; 1 file written to ")
    audited = toolproof("audit", "--server", server, "--output", str(tmp_path / "cases"))
    assert f"audit: wrote 1 case to {tmp_path / 'cases'}" in audited.err
    configure(settings, answer="v1", description="Gives back the configured answer, as it was set.")
    linted = toolproof("lint", "--server", server)
    assert "1 passed (1 with warning), 0 failed" in linted.out
    assert "lint: 1 tool, 0 errors, 1 warning\n" in linted.out
