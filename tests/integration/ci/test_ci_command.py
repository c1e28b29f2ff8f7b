"""`toolproof ci` on real servers: the pass-rate threshold (as mcp-assert decides it), trials of a flaky
flaky server, baselines with regressions, new and removed cases, and the pytest habits (--lf, --ff, -x)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from toolproof.cli import main

ROOT = Path(__file__).resolve().parents[3]
TINY = ROOT / "examples" / "servers" / "tiny_server.py"
FLAKY = ROOT / "tests" / "servers" / "flaky_server.py"


def tiny_case(name: str, text: str, expected: str) -> str:
    """A case calling the tiny server's echo tool, expecting `expected` back."""
    return textwrap.dedent(
        f"""\
        name: {name}
        server: {{command: {sys.executable}, args: [{TINY}]}}
        assert:
          tool: echo
          args: {{text: "{text}"}}
          expect: {{equals: "{expected}"}}
        """
    )


def flaky_case(name: str, tool: str, counter: Path) -> str:
    return textwrap.dedent(
        f"""\
        name: {name}
        server: {{command: {sys.executable}, args: [{FLAKY}, {counter}]}}
        assert:
          tool: {tool}
          args: {{}}
          expect: {{not_error: true}}
        """
    )


@pytest.fixture
def four_of_five(tmp_path: Path) -> Path:
    """Five cases, one file each (as mcp-assert wants them), of which exactly four pass."""
    suite = tmp_path / "suite"
    suite.mkdir()
    for number in range(1, 6):
        expected = "wrong" if number == 5 else f"hello {number}"
        (suite / f"case{number}.yaml").write_text(tiny_case(f"echo {number}", f"hello {number}", expected))
    return suite


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run in a fresh directory (the .toolproof/ state lives in the working directory), no step summary."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


def test_threshold_is_met_at_the_pass_rate_and_missed_just_above_it(
    four_of_five: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ci", str(four_of_five), "--threshold", "80"]) == 0
    assert "pass rate 80%, threshold 80%: met" in capsys.readouterr().out
    assert main(["ci", str(four_of_five), "--threshold", "81"]) == 1
    assert "pass rate 80%, threshold 81%: NOT met" in capsys.readouterr().out
    assert main(["ci", str(four_of_five)]) == 1  # the default threshold is 100


@pytest.mark.skipif(shutil.which("mcp-assert") is None, reason="mcp-assert is installed by make setup")
def test_threshold_verdicts_match_mcp_assert(four_of_five: Path) -> None:
    for threshold, expected in (("80", 0), ("81", 1)):
        theirs = subprocess.run(
            ["mcp-assert", "ci", "--suite", str(four_of_five), "--threshold", threshold],
            capture_output=True,
            timeout=120,
            check=False,
        )
        assert theirs.returncode == expected
        assert main(["ci", str(four_of_five), "--threshold", threshold, "-q"]) == expected


def test_skipped_cases_do_not_count_and_nothing_run_is_status_5(tmp_path: Path) -> None:
    suite = tmp_path / "skips"
    suite.mkdir()
    (suite / "a.yaml").write_text(tiny_case("passes", "x", "x"))
    (suite / "b.yaml").write_text(tiny_case("skipped", "x", "y") + "skip: true\n")
    assert main(["ci", str(suite), "-q"]) == 0
    (suite / "a.yaml").write_text(tiny_case("passes", "x", "x") + "skip: true\n")
    assert main(["ci", str(suite), "-q"]) == 5


def test_usage_errors_exit_2(four_of_five: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ci", str(four_of_five), "--fail-on-regression"]) == 2
    assert "--fail-on-regression needs --baseline" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stopped:
        main(["ci", str(four_of_five), "--threshold", "101"])
    assert stopped.value.code == 2
    bad = tmp_path / "bad.json"
    bad.write_text('{"entries": [{"status": "PASS"}]}')
    with pytest.raises(SystemExit) as stopped:
        main(["ci", str(four_of_five), "--baseline", str(bad)])
    assert stopped.value.code == 2
    assert "entries[0].name: Field required" in capsys.readouterr().err


def test_flaky_case_is_labelled_with_its_pass_rate_in_every_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = tmp_path / "flaky"
    suite.mkdir()
    counter = tmp_path / "calls.txt"
    (suite / "flip.yaml").write_text(flaky_case("flip", "flip", counter))
    (suite / "steady.yaml").write_text(flaky_case("steady", "steady", counter))
    reports = {name: tmp_path / f"out.{name}" for name in ("json", "xml", "md", "html", "badge")}
    status = main(
        ["run", str(suite), "--trials", "4", "--json", str(reports["json"]), "--junit", str(reports["xml"]),
         "--markdown", str(reports["md"]), "--html", str(reports["html"]), "--badge", str(reports["badge"])]
    )  # fmt: skip
    assert status == 1  # a flaky case does not pass every trial
    assert counter.read_text() == "4"  # the flip case's four trials each called the server once
    out = capsys.readouterr().out
    assert "2/4 trials passed, pass@4 1.00, pass^4 0.00, flaky" in out
    document = json.loads(reports["json"].read_text())
    flip = next(result for result in document["results"] if result["name"] == "flip")
    assert flip["flaky"] is True
    assert flip["trials"]["pass_rate"] == 0.5
    assert sorted(flip["trials"]["statuses"]) == ["FAIL", "FAIL", "PASS", "PASS"]
    assert document["reliability"] == {"cases": 2, "capable": 2, "reliable": 1, "flaky": 1}
    junit = ET.parse(reports["xml"]).getroot()
    suites = {suite.get("name"): suite for suite in junit.iter("testsuite")}
    flip_suite = next(element for name, element in suites.items() if name and name.endswith("flip.yaml"))
    properties = {p.get("name"): p.get("value") for p in flip_suite.find("properties") or []}
    assert properties == {"pass_at_k": "1/1", "pass_up_k": "0/1"}
    case_properties = {p.get("name"): p.get("value") for p in flip_suite.iter("property")}
    assert case_properties["flaky"] == "true" and case_properties["pass_rate"] == "0.5000"
    markdown = reports["md"].read_text()
    assert "| FAIL (flaky, 2/4 passed (50%)) | flip |" in markdown
    assert "| flip | 4 | 2 | 50% | YES | NO | yes |" in markdown
    assert "**pass@k: 2/2 capable, pass^k: 1/2 reliable, 1 flaky**" in markdown
    assert "flaky 2/4 (50%)" in reports["html"].read_text()
    assert json.loads(reports["badge"].read_text())["message"] == "6/8"  # trials count one by one


def test_a_case_that_stops_passing_is_a_regression_against_a_saved_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    counter = tmp_path / "calls.txt"
    (suite / "a.yaml").write_text(flaky_case("stays", "steady", counter))
    (suite / "b.yaml").write_text(flaky_case("breaks", "steady", counter))
    (suite / "c.yaml").write_text(flaky_case("goes away", "steady", counter))
    baseline = tmp_path / "baseline.json"
    assert main(["run", str(suite), "--save-baseline", str(baseline), "-q"]) == 0
    saved = json.loads(baseline.read_text())
    assert saved == {
        "entries": [
            {"name": "breaks", "status": "PASS"},
            {"name": "goes away", "status": "PASS"},
            {"name": "stays", "status": "PASS"},
        ]
    }
    (suite / "b.yaml").write_text(flaky_case("breaks", "broken", counter))
    (suite / "c.yaml").unlink()
    (suite / "d.yaml").write_text(flaky_case("is new", "steady", counter))
    capsys.readouterr()
    report = tmp_path / "report.json"
    args = ["ci", str(suite), "--threshold", "50", "--baseline", str(baseline), "--json", str(report)]
    assert main(args) == 0  # 2 of 3 pass: over the threshold, and regressions do not fail without the flag
    out = capsys.readouterr().out
    assert "against the baseline: 1 regression(s), 1 new, 1 removed" in out
    assert "regression: breaks (PASS -> FAIL)" in out
    assert json.loads(report.read_text())["title"] == "toolproof ci"
    assert json.loads(report.read_text())["baseline"] == {
        "regressions": [{"name": "breaks", "before": "PASS", "now": "FAIL", "why": "PASS -> FAIL"}],
        "new": ["is new"],
        "removed": ["goes away"],
    }
    assert main([*args, "--fail-on-regression"]) == 1
    assert main(["run", str(suite), "-k", "not breaks", "--baseline", str(baseline), "-q"]) == 0


@pytest.mark.skipif(shutil.which("mcp-assert") is None, reason="mcp-assert is installed by make setup")
def test_baselines_are_read_both_ways_with_mcp_assert(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    counter = tmp_path / "calls.txt"
    (suite / "a.yaml").write_text(flaky_case("steady case", "steady", counter))
    (suite / "b.yaml").write_text(flaky_case("broken case", "steady", counter))
    theirs = tmp_path / "theirs.json"
    subprocess.run(
        ["mcp-assert", "run", "--suite", str(suite), "--save-baseline", str(theirs)],
        capture_output=True,
        timeout=120,
        check=True,
    )
    ours = tmp_path / "ours.json"
    assert main(["run", str(suite), "--save-baseline", str(ours), "-q"]) == 0
    assert json.loads(ours.read_text()) == json.loads(theirs.read_text())
    (suite / "b.yaml").write_text(flaky_case("broken case", "broken", counter))
    capsys.readouterr()
    assert (
        main(["ci", str(suite), "--threshold", "0", "--baseline", str(theirs), "--fail-on-regression"]) == 1
    )
    assert "regression: broken case (PASS -> FAIL)" in capsys.readouterr().out
    again = subprocess.run(
        ["mcp-assert", "run", "--suite", str(suite), "--baseline", str(ours)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert again.returncode == 1
    assert "broken case" in again.stdout + again.stderr


def test_last_failed_failed_first_and_exitfirst(four_of_five: Path, tmp_path: Path) -> None:
    def names(*args: str) -> list[str]:
        report = tmp_path / "order.json"
        main(["run", str(four_of_five), "-j", "1", "-q", "--json", str(report), *args])
        return [result["name"] for result in json.loads(report.read_text())["results"]]

    assert names() == ["echo 1", "echo 2", "echo 3", "echo 4", "echo 5"]
    state = json.loads((tmp_path / ".toolproof" / "lastfailed.json").read_text())
    assert [node.rsplit("::", 1)[1] for node in state["failed"]] == ["echo 5"]
    assert (tmp_path / ".toolproof" / ".gitignore").read_text().endswith("*\n")
    assert names("--lf") == ["echo 5"]
    assert names("--ff") == ["echo 5", "echo 1", "echo 2", "echo 3", "echo 4"]
    stopped = names("--ff", "-x")  # stopped at the first failure; the next case may have run meanwhile,
    assert stopped[0] == "echo 5" and len(stopped) <= 2  # as it starts while the failed one's server stops
    (four_of_five / "case5.yaml").write_text(tiny_case("echo 5", "hello 5", "hello 5"))
    assert names("--lf") == ["echo 5"]  # passes now, so it leaves the record
    assert names("--lf") == ["echo 1", "echo 2", "echo 3", "echo 4", "echo 5"]  # nothing failed: all run


def test_exitfirst_says_how_many_cases_it_left_unrun(
    four_of_five: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = four_of_five / "case5.yaml"  # the failing case, named first so it runs first
    assert main(["run", str(first), str(four_of_five), "-j", "1", "-q", "-x"]) == 1
    out = capsys.readouterr().out
    stop = r"stopped after 1 failure \(-x/--maxfail\); [34] of 5 cases not run"
    assert re.search(stop, out)  # the next case may have run while the failed one's server stopped
    assert main(["ci", str(first), str(four_of_five), "-j", "1", "-q", "-x", "--threshold", "0"]) == 1
    assert "threshold 0% not applied" in capsys.readouterr().out  # 0% of what ran meets 0, yet it stopped
    assert main(["run", str(four_of_five), "-q", "--maxfail", "9999999999999999999"]) == 1
    assert "not run" not in capsys.readouterr().out


def test_bare_json_prints_the_report_on_stdout(
    four_of_five: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--json", str(four_of_five / "case1.yaml")]) == 0
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert document["format"] == "toolproof-report"
    assert [result["name"] for result in document["results"]] == ["echo 1"]
    assert "1 passed" in captured.err


def test_markdown_is_appended_to_the_file_and_the_step_summary(
    four_of_five: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = tmp_path / "step-summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    markdown = tmp_path / "report.md"
    for _ in range(2):
        main(
            [
                "ci",
                str(four_of_five),
                "--threshold",
                "80",
                "--markdown",
                str(markdown),
                "-q",
                "--durations",
                "2",
            ]
        )
    text = markdown.read_text()
    assert text.count("### toolproof ci: 4/5 passed") == 2
    assert "| FAIL | echo 5 |" in text
    assert "<details><summary>Failure details</summary>" in text
    assert summary.read_text().startswith("earlier step\n### toolproof ci: 4/5 passed")
    out = capsys.readouterr().out
    assert out.count("slowest 2 durations:") == 2
    assert re.search(r"\n +\d+(ms|\.\ds)  \S+case\d\.yaml::echo \d\n", out)


def test_report_renders_a_saved_report_and_refuses_other_json(tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text('[{"name": "x", "status": "PASS"}]')  # mcp-assert's --json array
    assert main(["report", str(other), "--html", str(tmp_path / "page.html")]) == 2
    assert main(["report", str(tmp_path / "missing.json"), "--html", str(tmp_path / "page.html")]) == 2
    assert not (tmp_path / "page.html").exists()
