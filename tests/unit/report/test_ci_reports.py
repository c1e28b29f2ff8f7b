"""The CI-facing pieces on their own: the pass-rate gate, baseline comparison, the last-failed order, the
Markdown and badge writers, and the HTML page's escaping and format checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.unit.report.synthetic import SECRET, feed, sample

from toolproof.check.trials import combine
from toolproof.core.sanitize import MASK
from toolproof.load.collect import prioritise
from toolproof.model.events import RunFinished, RunStarted, RunStopped
from toolproof.model.result import CaseResult, Status
from toolproof.report.badge import badge_document
from toolproof.report.baseline import (
    BaselineError,
    BaselineWriter,
    Entry,
    baseline_document,
    compare,
    entries_of,
    load_baseline,
)
from toolproof.report.gate import meets_threshold, pass_percentage
from toolproof.report.history import LastFailedWriter, last_failed
from toolproof.report.html import ReportFormatError, check_document, render_html
from toolproof.report.json_report import JsonReport
from toolproof.report.markdown import MarkdownReport
from toolproof.report.notes import ThresholdNote

SUITE = Path("s.yaml")


def result(name: str, status: Status) -> CaseResult:
    return CaseResult(name=name, file=SUITE, status=status)


def trials(name: str, *statuses: Status) -> CaseResult:
    return combine(
        [result(name, status).model_copy(update={"trial": n}) for n, status in enumerate(statuses, 1)]
    )


@pytest.mark.parametrize(
    ("passed", "failed", "skipped", "percentage"),
    [(4, 1, 0, 80), (4, 1, 3, 80), (2, 1, 0, 66), (0, 0, 2, None), (1, 0, 0, 100), (0, 3, 0, 0)],
)
def test_pass_percentage_rounds_down_and_ignores_skips(
    passed: int, failed: int, skipped: int, percentage: int | None
) -> None:
    results = [result(f"p{i}", Status.PASS) for i in range(passed)]
    results += [result(f"f{i}", Status.FAIL) for i in range(failed)]
    results += [result(f"s{i}", Status.SKIP) for i in range(skipped)]
    assert pass_percentage(results) == percentage


def test_threshold_floor_semantics() -> None:
    results = [*(result(f"p{i}", Status.PASS) for i in range(4)), result("f", Status.ERROR)]
    assert meets_threshold(results, 80)
    assert not meets_threshold(results, 81)
    assert not meets_threshold([result("s", Status.SKIP)], 0)


def test_a_falling_pass_rate_is_a_regression_even_when_the_case_still_passes() -> None:
    before = {
        "flaky now": Entry(name="flaky now", status="PASS", pass_rate=1.0),
        "steady": Entry(name="steady", status="PASS", pass_rate=1.0),
        "was failing": Entry(name="was failing", status="FAIL"),
    }
    now = [
        trials("flaky now", Status.PASS, Status.FAIL, Status.PASS).model_copy(update={"status": Status.PASS}),
        trials("steady", Status.PASS, Status.PASS),
        result("was failing", Status.FAIL),
    ]
    found = compare(before, now)
    assert [(each.name, each.why) for each in found.regressions] == [("flaky now", "pass rate 100% -> 67%")]
    assert found.new == () and found.removed == ()


def test_baseline_entries_keep_the_last_result_of_a_name_and_the_rate_of_trials() -> None:
    entries = entries_of(
        [result("a", Status.FAIL), result("a", Status.PASS), trials("b", Status.PASS, Status.FAIL)]
    )
    assert entries["a"] == Entry(name="a", status="PASS")
    assert entries["b"].pass_rate == 0.5


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("not json", "not JSON"),
        ('{"entries": {}}', "expected an object with an `entries` list"),
        ('{"entries": [{"name": "a"}]}', "entries[0].status: Field required"),
    ],
)
def test_bad_baselines_name_the_file_and_field(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "b.json"
    path.write_text(text)
    with pytest.raises(BaselineError, match=r"b\.json: ") as raised:
        load_baseline(path)
    assert problem in str(raised.value)
    with pytest.raises(BaselineError, match=r"missing\.json"):
        load_baseline(tmp_path / "missing.json")


def test_a_case_named_with_a_secret_is_compared_with_its_masked_baseline_entry(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    before = [result(f"uses {SECRET} twice: {SECRET}", Status.PASS), result("plain", Status.PASS)]
    path.write_text(baseline_document(before, [SECRET]))
    assert SECRET not in path.read_text()
    now = [result(f"uses {SECRET} twice: {SECRET}", Status.FAIL), result("plain", Status.PASS)]
    found = compare(load_baseline(path), now)
    assert [each.name for each in found.regressions] == [f"uses {SECRET} twice: {SECRET}"]
    assert found.new == () and found.removed == ()
    other = compare(load_baseline(path), [result("uses x twice", Status.PASS)])  # one *** each, not zero
    assert other.new == ("uses x twice",) and len(other.removed) == 2


def test_a_run_that_stopped_early_leaves_the_saved_baseline_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "b.json"
    path.write_text('{"entries": [{"name": "a", "status": "PASS"}, {"name": "b", "status": "PASS"}]}')
    writer = BaselineWriter(path)
    writer.handle(RunStarted(total=2))
    writer.handle(RunFinished(results=[result("a", Status.PASS)]))  # stopped by a signal or -x
    assert [entry.name for entry in load_baseline(path).values()] == ["a", "b"]
    assert f"baseline not saved to {path}: the run stopped after 1 of 2 cases" in capsys.readouterr().err
    writer.handle(RunFinished(results=[result("a", Status.PASS), result("b", Status.FAIL)]))
    assert load_baseline(path)["b"].status == "FAIL"


def test_a_stopped_run_whose_cases_gave_several_results_is_still_cut_short(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`check` gives one result per check: 3 results from 1 of 2 cases outnumber the cases, and only the
    scheduler's RunStopped tells that the run was cut short."""
    path = tmp_path / "b.json"
    path.write_text('{"entries": [{"name": "a", "status": "PASS"}]}')
    sinks = [BaselineWriter(path), ThresholdNote(50)]
    results = [result(f"a › check {n}", Status.FAIL) for n in range(3)]
    for event in (RunStarted(total=2), RunStopped("after 1 failure (-x/--maxfail)", 1), RunFinished(results)):
        for sink in sinks:
            sink.handle(event)
    captured = capsys.readouterr()
    assert [entry.name for entry in load_baseline(path).values()] == ["a"]
    assert f"baseline not saved to {path}: the run stopped after 1 of 2 cases" in captured.err
    assert "pass rate: the run stopped after 1 of 2 cases; threshold 50% not applied" in captured.out


def test_mcp_assert_baselines_with_extra_keys_are_read(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    path.write_text('{"entries": [{"name": "x", "status": "PASS", "language": "go"}]}')
    assert load_baseline(path)["x"].status == "PASS"


def test_last_failed_keeps_cases_that_did_not_run_and_drops_those_that_passed(tmp_path: Path) -> None:
    state = tmp_path / ".toolproof"
    feed(
        LastFailedWriter(state),
        [result("a", Status.FAIL), result("b", Status.FAIL), result("c", Status.PASS)],
    )
    assert last_failed(state) == {"s.yaml::a", "s.yaml::b"}
    feed(LastFailedWriter(state), [result("a", Status.PASS), result("c", Status.ERROR)])
    assert last_failed(state) == {"s.yaml::b", "s.yaml::c"}
    (state / "lastfailed.json").write_text("garbage")
    assert last_failed(state) == set()


def test_prioritise_keeps_load_errors_and_falls_back_to_all() -> None:
    items = ["a", None, "b", "c"]
    assert prioritise(items, lambda item: item, {"c"}, only=True) == [None, "c"]
    assert prioritise(items, lambda item: item, {"c"}, only=False) == ["c", "a", None, "b"]
    assert prioritise(items, lambda item: item, {"gone"}, only=True) == items


def test_markdown_escapes_table_cells_and_masks_secrets(tmp_path: Path) -> None:
    path = tmp_path / "m.md"
    odd = result(f"a | b <script> {SECRET}", Status.FAIL)
    feed(MarkdownReport(path, [SECRET]), [*sample(), odd])
    text = path.read_text()
    assert f"| FAIL | a \\| b &lt;script&gt; {MASK} |" in text
    assert SECRET not in text
    assert text.startswith("### toolproof: 1/4 passed\n")  # skipped cases are not counted


def test_badge_colours_and_counts() -> None:
    assert json.loads(badge_document([result("a", Status.PASS)]))["color"] == "brightgreen"
    five = [*(result(f"p{i}", Status.PASS) for i in range(4)), result("f", Status.FAIL)]
    assert json.loads(badge_document(five)) == {
        "schemaVersion": 1,
        "label": "toolproof",
        "message": "4/5",
        "color": "yellow",
    }
    assert json.loads(badge_document([result("f", Status.FAIL), result("s", Status.SKIP)]))["color"] == "red"
    nothing_ran = json.loads(badge_document([result("s", Status.SKIP)]))
    assert (nothing_ran["message"], nothing_ran["color"]) == ("0/0", "lightgrey")


def test_html_escapes_server_text_and_checks_the_document_format(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    hostile = result("<img src=x onerror=alert(1)>", Status.FAIL)
    feed(JsonReport(path), [hostile])
    page = render_html(check_document(json.loads(path.read_text()), "r.json"))
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    with pytest.raises(ReportFormatError, match="not a toolproof JSON report"):
        check_document([], "x.json")
    with pytest.raises(ReportFormatError, match="format_version 99"):
        check_document({"format": "toolproof-report", "format_version": 99}, "x.json")
