"""Merging shard reports: `ci SUITE --shard K/N` for K = 1..N, then `toolproof report` of the N JSON files
(or `ci --merge DIR`) gives the verdicts, threshold decision, baseline decision, last-failed record and HTML
page of one unsharded run; a missing, repeated or foreign shard is an error naming it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from tests.support.echo_suite import write_echo_suite

from toolproof.cli import main
from toolproof.report.html import render_html

ROOT = Path(__file__).resolve().parents[3]
TIMINGS = {"duration_ms", "duration_s", "created_at", "phases_ms"}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One unsharded `ci` run (whole.json, whole.html) and its three shards (shards/K.json) of a suite of
    eight cases in three files: five pass, two fail, one is skipped."""
    root = tmp_path_factory.mktemp("runs")
    write_echo_suite(root / "suite")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        patch.delenv("GITHUB_STEP_SUMMARY", raising=False)
        assert main(["ci", "suite", "-q", "--json", "whole.json", "--html", "whole.html"]) == 1
        for index in (1, 2, 3):
            main(["ci", "suite", "-q", "--shard", f"{index}/3", "--json", f"shards/{index}.json"])
    return root


@pytest.fixture
def here(runs: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Path:
    monkeypatch.chdir(runs)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    shutil.rmtree(runs / ".toolproof", ignore_errors=True)
    shutil.rmtree(runs / "out", ignore_errors=True)
    capsys.readouterr()
    return runs


def _untimed(value: Any) -> Any:
    """`value` with every timing (durations, phases, creation time) set to zero."""
    if isinstance(value, dict):
        return {key: 0 if key in TIMINGS else _untimed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_untimed(item) for item in value]
    return value


def _document(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(path.read_text())
    return loaded


def _shards() -> list[str]:
    return ["shards/3.json", "shards/1.json", "shards/2.json"]  # any order


def test_the_merged_report_is_the_unsharded_runs_up_to_timings(here: Path) -> None:
    whole = _document(here / "whole.json")
    shard_sizes = [len(_document(here / f"shards/{index}.json")["results"]) for index in (1, 2, 3)]
    assert sorted(shard_sizes) != [0, 0, 8]  # the split really splits this suite
    outputs = ["--json", "out/all.json", "--html", "out/all.html", "--junit", "out/all.xml"]
    outputs += ["--markdown", "out/all.md", "--badge", "out/badge.json"]
    assert main(["report", *_shards(), *outputs]) == 0
    merged = _document(here / "out/all.json")
    assert "shard" not in merged
    assert [(r["node_id"], r["status"]) for r in merged["results"]] == [
        (r["node_id"], r["status"]) for r in whole["results"]
    ]
    assert _untimed(merged) == _untimed(whole)
    assert render_html(_untimed(merged)) == render_html(_untimed(whole))
    page = (here / "out/all.html").read_text()
    assert all(f"case {number}" in page for number in range(8))
    assert _document(here / "out/badge.json")["message"] == "5/7"  # of the non-skipped
    assert (here / "out/all.xml").read_text().count("<testcase") == 8


@pytest.mark.parametrize(("threshold", "status"), [("70", 0), ("72", 1)])
def test_the_threshold_decides_on_the_whole(here: Path, threshold: str, status: int) -> None:
    assert main(["ci", "suite", "--collect-only", "-q"]) == 0  # the suite is still here
    assert main(["report", *_shards(), "--threshold", threshold]) == status
    assert main(["ci", "--merge", "shards", "--threshold", threshold]) == status


def test_a_regression_against_a_baseline_fails_the_whole_with_fail_on_regression(here: Path) -> None:
    baseline = here / "out" / "baseline.json"
    baseline.parent.mkdir()
    baseline.write_text(json.dumps({"entries": [{"name": "case 5", "status": "PASS"}]}))
    gate = ["--threshold", "0", "--baseline", str(baseline)]
    assert main(["ci", "--merge", "shards", *gate]) == 0
    assert main(["ci", "--merge", "shards", *gate, "--fail-on-regression"]) == 1
    baseline.write_text(json.dumps({"entries": [{"name": "case 4", "status": "PASS"}]}))
    assert main(["ci", "--merge", "shards", *gate, "--fail-on-regression"]) == 0


def test_merging_records_the_failed_cases_for_lf(here: Path) -> None:
    assert main(["report", *_shards()]) == 0
    record = _document(here / ".toolproof" / "lastfailed.json")
    assert record == {"failed": ["suite/part0.yaml::case 2", "suite/part1.yaml::case 5"]}


def test_ci_merge_reads_reports_in_subdirectories_as_artifacts_unpack(here: Path) -> None:
    for index in (1, 2, 3):
        target = here / "out" / f"shard-{index}" / "report.json"
        target.parent.mkdir(parents=True)
        shutil.copy(here / "shards" / f"{index}.json", target)
    assert main(["ci", "--merge", "out", "--threshold", "70", "--json", "merged.json"]) == 0
    assert len(_document(here / "merged.json")["results"]) == 8


def test_a_missing_shard_is_named(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "shards/1.json", "shards/3.json", "--html", "out/x.html"]) == 2
    assert "shard 2/3 missing" in capsys.readouterr().err
    assert not (here / "out" / "x.html").exists()


def test_a_repeated_shard_is_named(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "out").mkdir()
    shutil.copy(here / "shards/2.json", here / "out/again.json")
    assert main(["report", *_shards(), "out/again.json"]) == 2
    assert "shard 2/3 given twice: shards/2.json and out/again.json" in capsys.readouterr().err


def test_shards_of_another_split_or_a_whole_report_are_refused(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (here / "out").mkdir()
    other = _document(here / "shards/1.json")
    other["shard"]["total"] = 4
    (here / "out/four.json").write_text(json.dumps(other))
    assert main(["report", "shards/2.json", "out/four.json"]) == 2
    assert "out/four.json: shard 1/4, but shards/2.json is one of 3" in capsys.readouterr().err
    assert main(["report", *_shards(), "whole.json"]) == 2
    assert "whole.json: not a shard's report" in capsys.readouterr().err
    assert main(["ci", "--merge", "shards", "suite"]) == 2
    assert "--merge DIR runs nothing" in capsys.readouterr().err


def test_one_saved_report_still_renders_its_page(here: Path) -> None:
    assert main(["report", "whole.json", "--html", "out/again.html"]) == 0
    assert (here / "out/again.html").read_text() == render_html(_document(here / "whole.json"))
