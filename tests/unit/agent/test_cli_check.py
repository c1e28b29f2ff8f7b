"""`toolproof check`: recorded runs against case files, reported like `run`, with the same exit status."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from toolproof.cli import check
from toolproof.run import trace_suite

ROOT = Path(__file__).parents[3]
EXAMPLES = ROOT / "examples" / "agent"
DATA = Path(__file__).parent / "data"


def toolproof_check(*argv: str | Path) -> int:
    parser = argparse.ArgumentParser(prog="toolproof")
    check.register(parser.add_subparsers())
    args = parser.parse_args(["check", *map(str, argv)])
    status: int = args.handler(args)
    return status


def report(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text())
    return document


def test_examples(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report.json"
    status = toolproof_check(
        "--trace",
        EXAMPLES / "traces",
        EXAMPLES,
        "--skip-judge",
        "--timezone",
        "Europe/Lisbon",
        "--json",
        out,
        "-q",
    )
    assert status == 1
    document = report(out)
    assert document["summary"]["errors"] == 0
    failed = {r["name"] for r in document["results"] if r["status"] == "FAIL"}
    assert all("[bad]" in name or "[claude-haiku run 1]" in name for name in failed)
    booking = [r for r in document["results"] if r["name"].startswith("booking workflow")]
    assert booking and all(r["status"] == "PASS" for r in booking if "guardrail" not in r["name"])
    (guardrail,) = [r for r in booking if "guardrail" in r["name"]]
    assert (guardrail["status"], guardrail["reason"]) == (
        "SKIP",
        "not evaluated: the run recorded no guardrail information",
    )
    skipped = {r["name"]: r["reason"] for r in document["results"] if r["status"] == "SKIP"}
    assert "Hotel search in Madrid › judge: Lists hotels with their prices" in skipped
    assert "FAIL" in capsys.readouterr().out


def test_a_passing_run_exits_zero(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    lines = (DATA / "traces" / "mcplab_trace.jsonl").read_text().splitlines()
    trace.write_text("\n".join(lines[:2]) + "\n")  # the meta line and the passing run only
    assert toolproof_check("--trace", trace, DATA / "mcplab" / "ordered_sequence.yaml", "-q") == 0


def test_judge_checks_need_a_judge(capsys: pytest.CaptureFixture[str]) -> None:
    status = toolproof_check("--trace", EXAMPLES / "traces", EXAMPLES / "mibo")
    assert status == 2
    assert "judge checks need a judge" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("trace", "message"),
    [("nope.json", "no such file or directory"), ("bad.json", "not a trace format toolproof knows")],
)
def test_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], trace: str, message: str) -> None:
    (tmp_path / "bad.json").write_text('{"x": 1}')
    assert toolproof_check("--trace", tmp_path / trace, DATA / "mcplab" / "tool_constraints.yaml") == 2
    assert message in capsys.readouterr().err


def test_no_run_matches(capsys: pytest.CaptureFixture[str]) -> None:
    status = toolproof_check(
        "--trace", DATA / "traces" / "mcplab_trace.jsonl", DATA / "mcplab" / "tool_constraints.yaml"
    )
    assert status == 2
    assert "no recorded run matches any case" in capsys.readouterr().err


def test_load_errors_are_error_results(tmp_path: Path) -> None:
    broken = tmp_path / "case.yaml"
    broken.write_text("name: x\nprompt: hi\nexpect:\n  - caled: t\n")
    out = tmp_path / "r.json"
    assert toolproof_check("--trace", DATA / "traces" / "audit.jsonl", broken, "--json", out, "-q") == 2
    (result,) = report(out)["results"]
    assert result["status"] == "ERROR" and "did you mean 'called'?" in result["failure"]["message"]


def test_by_case_and_unnamed_runs(tmp_path: Path) -> None:
    case = tmp_path / "case.yaml"
    case.write_text(
        textwrap.dedent("""\
        name: rename
        expect:
          - sequence: [prepare_rename, rename_symbol]
          - not_called: apply_edit
        """)
    )
    out = tmp_path / "r.json"
    assert (
        toolproof_check("--trace", DATA / "traces" / "audit.jsonl", case, "--by-case", "--json", out, "-q")
        == 1
    )
    (result,) = report(out)["results"]
    assert result["name"] == "rename" and result["status"] == "FAIL"
    assert [item["status"] for item in result["failure"]["details"]["assertions"]] == ["PASS", "FAIL"]


def test_now_moves_today(tmp_path: Path) -> None:
    case = DATA / "mibo" / "matcher_date.json"
    trace = tmp_path / "trace.json"
    trace.write_text(
        json.dumps(
            {
                "data": {
                    "text": "booked",
                    "tool_calls": [{"name": "create_booking", "arguments": {"date": "2026-03-11T09:02:00"}}],
                }
            }
        )
    )
    common = ("--trace", trace, case, "--timezone", "Europe/Lisbon", "-q")
    assert toolproof_check(*common, "--now", "2026-03-10T08:00:00") == 0
    assert toolproof_check(*common, "--now", "2026-03-11T08:00:00") == 1


def test_what_evaluating_warns_of_is_on_stderr_and_in_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = tmp_path / "shadowed.json"
    case.write_text(
        json.dumps({"context": {"TODAY": 1}, **json.loads((DATA / "mibo" / "matcher_date.json").read_text())})
    )
    trace = tmp_path / "trace.json"
    call = {"name": "create_booking", "arguments": {"date": "2026-03-11T09:02:00"}}
    trace.write_text(json.dumps({"data": {"text": "booked", "tool_calls": [call]}}))
    out = tmp_path / "r.json"
    capsys.readouterr()
    now = ("--now", "2026-03-10T08:00:00", "--timezone", "UTC")
    assert toolproof_check(case, "--trace", trace, *now, "--json", out, "-q") == 0
    warnings = report(out)["warnings"]
    about = f"{case}: Appointment lands tomorrow at nine, give or take five minutes: "
    assert f"{about}context variable TODAY is hidden by the built-in of that name" in warnings
    assert capsys.readouterr().err == "".join(f"toolproof: {warning}\n" for warning in warnings)


def test_recorded_start_is_the_default_now(tmp_path: Path) -> None:
    trace = tmp_path / "trace.json"
    trace.write_text(
        json.dumps(
            {
                "runs": [
                    {
                        "started_ms": 1773133200000,
                        "turns": [
                            {
                                "calls": [
                                    {"tool": "create_booking", "arguments": {"date": "2026-03-11T09:02:00"}}
                                ]
                            }
                        ],
                    }
                ]
            }
        )
    )
    assert (
        toolproof_check("--trace", trace, DATA / "mibo" / "matcher_date.json", "--timezone", "UTC", "-q") == 0
    )


def test_passive_checking_never_imports_the_mcp_sdk() -> None:
    code = textwrap.dedent(f"""
        import argparse, sys
        from toolproof.cli import check
        parser = argparse.ArgumentParser()
        check.register(parser.add_subparsers())
        args = parser.parse_args(["check", "--trace", {str(EXAMPLES / "traces")!r}, {str(EXAMPLES)!r},
                                  "--skip-judge", "-q"])
        status = args.handler(args)
        loaded = [name for name in sys.modules if name.split(".")[0] in ("mcp", "mcp_types")]
        assert not loaded, loaded
        sys.exit(10 + status)
        """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 11, done.stderr


def test_a_run_directory_skips_files_of_no_trace_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = tmp_path / "20260310-090000-000"  # an MCPLab run directory
    run_dir.mkdir()
    shutil.copy(DATA / "traces" / "mcplab_trace.jsonl", run_dir / "trace.jsonl")
    results = {"metadata": {"run_id": "r"}, "summary": {"total_scenarios": 1}, "scenarios": []}
    (run_dir / "results.json").write_text(json.dumps(results))
    (run_dir / "notes.json").write_text('{"x": 1}')
    out = tmp_path / "r.json"
    case = DATA / "mcplab" / "ordered_sequence.yaml"
    assert toolproof_check(case, "--trace", run_dir, "--json", out, "-q") == 1
    err = capsys.readouterr().err
    assert "results.json: skipped, an MCPLab results.json, which holds no messages" in err
    assert "notes.json: skipped, not a trace format toolproof knows (top-level keys: x)" in err
    assert {result["status"] for result in report(out)["results"]} == {"PASS", "FAIL"}
    assert toolproof_check(case, "--trace", run_dir / "results.json", "-q") == 2  # named itself: an error
    assert "results.json: an MCPLab results.json" in capsys.readouterr().err


def test_trace_takes_several_paths(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    meta, first_run, second_run = (DATA / "traces" / "mcplab_trace.jsonl").read_text().splitlines()[:3]
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    first.write_text(f"{meta}\n{first_run}\n")
    second.write_text(f"{meta}\n{second_run}\n")
    case = DATA / "mcplab" / "ordered_sequence.yaml"
    out = tmp_path / "r.json"
    for argv in (
        ("--trace", first, second, case),
        (case, "--trace", first, second),
        ("--trace", first, second, "--", case),
    ):
        assert toolproof_check("--json", out, "-q", *argv) == 1, argv
        names = {result["name"] for result in report(out)["results"]}
        assert any("[claude-haiku run 0]" in name for name in names), argv
        assert any("[claude-haiku run 1]" in name for name in names), argv
    assert toolproof_check("--trace", first) == 2
    assert "no cases given" in capsys.readouterr().err


def test_runs_of_one_case_are_told_apart_by_their_names() -> None:
    from toolproof.model.transcript import Transcript

    assert trace_suite.run_labels([Transcript(run="a")]) == [None]
    assert trace_suite.run_labels([Transcript(run="a"), Transcript(source="t.json")]) == ["a", "t.json"]
    assert trace_suite.run_labels([Transcript(), Transcript()]) == ["run 1", "run 2"]
    same = [Transcript(source="t.json"), Transcript(source="t.json")]
    assert trace_suite.run_labels(same) == ["t.json #1", "t.json #2"]
