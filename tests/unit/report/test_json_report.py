"""The JSON report: toolproof's document, mcp-assert's legacy array, stdout, secrets, unwritable paths."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

from tests.unit.report.synthetic import SECRET, feed, hostile, sample

from toolproof import __version__
from toolproof.model.events import CaseFinished, RunStarted
from toolproof.model.result import CaseResult, Failure, FailureKind, Status
from toolproof.report.json_read import results_of
from toolproof.report.json_report import JsonReport


def test_document_shape(tmp_path: Path) -> None:
    path = tmp_path / "out" / "nested" / "report.json"
    feed(JsonReport(path), sample())
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["format"] == "toolproof-report"
    assert document["format_version"] == 1
    assert document["tool"] == "toolproof"
    assert document["version"] == __version__
    assert document["summary"] == {
        "total": 4,
        "passed": 1,
        "warned": 0,
        "failed": 1,
        "skipped": 1,
        "errors": 1,
        "flaky": 0,
        "pass_percentage": 33,
        "duration_s": 3.21,
    }
    assert document["reliability"] is None
    assert document["baseline"] is None
    assert [entry["name"] for entry in document["results"]] == [
        "get time",
        "convert time",
        "needs token",
        "crashes",
    ]
    assert document["results"][1] == {
        "node_id": "suites/time.yaml::convert time",
        "name": "convert time",
        "file": "suites/time.yaml",
        "line": 9,
        "status": "FAIL",
        "duration_ms": 1234.0,
        "trial": 1,
        "failure": {
            "kind": "expectation",
            "message": 'result text does not contain "Paris"',
            "check": "contains",
            "expected": "Paris",
            "actual": {"timezone": "UTC"},
            "details": {},
        },
        "reason": None,
        "stderr": "starting\nwarning: slow\n",
        "phases_ms": {},
        "flaky": False,
        "trials": None,
        "steps": [],
        "warnings": [],
    }
    assert document["results"][2]["failure"] is None
    assert document["results"][2]["reason"] == "env var TOKEN not set"
    assert document["results"][3]["failure"]["details"] == {"code": -32602}


def test_node_ids_are_unique_per_case_and_shared_by_its_trials() -> None:
    same = CaseResult(name="same", file=Path("d/a.yaml"), line=1, status=Status.PASS)
    results = [
        same,
        same.model_copy(update={"trial": 2}),
        same.model_copy(update={"line": 5}),
        same.model_copy(update={"line": 5, "trial": 2}),
        same.model_copy(update={"file": Path("d/b.yaml")}),
    ]
    stdout = io.StringIO()
    feed(JsonReport("-", stdout=stdout), results)
    assert [entry["node_id"] for entry in json.loads(stdout.getvalue())["results"]] == [
        "d/a.yaml::same",
        "d/a.yaml::same",
        "d/a.yaml::same [2]",
        "d/a.yaml::same [2]",
        "d/b.yaml::same",
    ]


def test_a_huge_value_is_cut_with_a_note_of_its_size() -> None:
    failure = Failure(kind=FailureKind.EXPECTATION, message="m", expected=["x"], actual="y" * (3 << 20))
    stdout = io.StringIO()
    result = CaseResult(name="n", file=Path("f"), status=Status.FAIL, failure=failure)
    feed(JsonReport("-", stdout=stdout), [result])
    reported = json.loads(stdout.getvalue())["results"][0]["failure"]
    assert reported["expected"] == ["x"]
    assert reported["actual"] == "y" * (64 << 10) + f"... ({(3 << 20) - (64 << 10)} more characters)"


def test_nothing_is_written_before_the_run_finishes(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    report = JsonReport(path)
    report.handle(RunStarted(total=1))
    report.handle(CaseFinished(result=sample()[0], index=0, total=1))
    assert not path.exists()


def test_dash_writes_to_stdout() -> None:
    stdout = io.StringIO()
    feed(JsonReport("-", stdout=stdout), sample())
    assert json.loads(stdout.getvalue())["summary"]["total"] == 4
    assert stdout.getvalue().endswith("}\n")


def test_legacy_is_mcp_assert_json_shape() -> None:
    stdout = io.StringIO()
    feed(JsonReport("-", legacy=True, stdout=stdout), sample())
    assert json.loads(stdout.getvalue()) == [
        {"name": "get time", "status": "PASS", "duration_ms": 12, "trial": 1},
        {
            "name": "convert time",
            "status": "FAIL",
            "detail": 'result text does not contain "Paris"',
            "duration_ms": 1234,
            "trial": 1,
        },
        {
            "name": "needs token",
            "status": "SKIP",
            "detail": "env var TOKEN not set",
            "duration_ms": 0,
            "trial": 1,
        },
        {"name": "crashes", "status": "FAIL", "detail": "Invalid params", "duration_ms": 500, "trial": 1},
    ]
    assert stdout.getvalue().startswith('[\n  {\n    "name": "get time",\n    "status": "PASS",\n')


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [*value, *(text for item in value.values() for text in _strings(item))]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []


def test_secrets_masked_and_escapes_stripped_in_both_shapes() -> None:
    results = [hostile(result) for result in sample()]
    for legacy in (False, True):
        stdout = io.StringIO()
        feed(JsonReport("-", [SECRET], legacy=legacy, stdout=stdout), results)
        assert SECRET not in stdout.getvalue()
        assert "***" in stdout.getvalue()
        for text in _strings(json.loads(stdout.getvalue())):
            assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", text)


def test_status_words_are_not_masked_by_an_unlucky_secret() -> None:
    stdout = io.StringIO()
    result = CaseResult(name="n", file=Path("f.yaml"), status=Status.PASS)
    feed(JsonReport("-", ["PASS"], stdout=stdout), [result])
    assert json.loads(stdout.getvalue())["results"][0]["status"] == "PASS"


def test_an_unwritable_path_warns_and_does_not_raise(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("", encoding="utf-8")
    stderr = io.StringIO()
    feed(JsonReport(tmp_path / "file" / "report.json", stderr=stderr), sample())
    assert stderr.getvalue().startswith(f"toolproof: could not write {tmp_path / 'file' / 'report.json'}: ")
    assert stderr.getvalue().count("\n") == 1


def test_a_closed_stdout_warns() -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    stdout.close()
    feed(JsonReport("-", stdout=stdout, stderr=stderr), sample())
    assert stderr.getvalue().startswith("toolproof: could not write the JSON report to stdout: ")


def test_a_results_details_are_written_and_read_back() -> None:
    details = {"official": {"scenarios": [], "note": "untested"}}
    result = CaseResult(
        name="ping [basic/utilities/ping]", file=Path("s"), status=Status.PASS, details=details
    )
    stdout = io.StringIO()
    feed(JsonReport("-", stdout=stdout), [result, result.model_copy(update={"details": {}})])
    document = json.loads(stdout.getvalue())
    assert document["results"][0]["details"] == details
    assert "details" not in document["results"][1]
    assert [each.details for each in results_of(document, "report.json")] == [details, {}]
