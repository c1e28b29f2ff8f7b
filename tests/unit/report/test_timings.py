import json
from pathlib import Path

import pytest

from toolproof.model.events import RunFinished
from toolproof.model.result import CaseResult, Status
from toolproof.report.timings import DurationsWriter, last_durations, record_text


def result(name: str, status: Status, seconds: float) -> CaseResult:
    return CaseResult(name=name, file=Path("s.yaml"), status=status, duration_s=seconds)


def test_a_run_records_the_cases_that_ran_and_keeps_the_others(tmp_path: Path) -> None:
    writer = DurationsWriter(tmp_path)
    writer.handle(RunFinished(results=[result("a", Status.PASS, 1.0), result("b", Status.FAIL, 2.5)]))
    writer.handle(
        RunFinished(
            results=[
                result("a", Status.PASS, 0.25),
                result("b", Status.SKIP, 0.0),  # skipped: keeps 2.5
                result("c", Status.ERROR, 0.0),  # a load error or a crash before it ran: not recorded
            ]
        )
    )
    assert last_durations(tmp_path) == {"s.yaml::a": 0.25, "s.yaml::b": 2.5}


def test_the_record_keeps_the_most_recent_durations_up_to_its_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("toolproof.report.timings.KEPT", 3)
    writer = DurationsWriter(tmp_path)
    for name in ("a", "b", "c"):
        writer.handle(RunFinished(results=[result(name, Status.PASS, 1.0)]))
    writer.handle(RunFinished(results=[result("a", Status.PASS, 2.0)]))  # a is now the most recent
    writer.handle(RunFinished(results=[result("d", Status.PASS, 3.0)]))  # b, the oldest, goes
    assert last_durations(tmp_path) == {"s.yaml::c": 1.0, "s.yaml::a": 2.0, "s.yaml::d": 3.0}
    many = [result(name, Status.PASS, 0.5) for name in "vwxyz"]  # one run over the bound keeps all its cases
    writer.handle(RunFinished(results=many))
    assert last_durations(tmp_path) == {f"s.yaml::{name}": 0.5 for name in "vwxyz"}


def test_a_missing_or_damaged_record_is_empty(tmp_path: Path) -> None:
    assert last_durations(tmp_path) == {}
    (tmp_path / "durations.json").write_text("{not json")
    assert last_durations(tmp_path) == {}
    (tmp_path / "durations.json").write_text('{"seconds": {"a": "slow", "b": -1, "c": true, "d": 3}}')
    assert last_durations(tmp_path) == {"d": 3.0}


def test_an_unwritable_directory_is_warned_about(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("")
    DurationsWriter(blocked).handle(RunFinished(results=[result("a", Status.PASS, 1.0)]))
    assert "could not record durations" in capsys.readouterr().err


def test_the_record_makes_its_directory_ignored_by_git(tmp_path: Path) -> None:
    state = tmp_path / ".toolproof"
    DurationsWriter(state).handle(RunFinished(results=[result("a", Status.PASS, 1.0)]))
    assert (state / ".gitignore").read_text() == "# created by toolproof\n*\n"
    assert last_durations(state) == {"s.yaml::a": 1.0}


def test_the_record_is_written_as_indented_json_one_entry_a_line() -> None:
    seconds = {"s.yaml::a": 0.25, 'q "quoted" \\ name\n': 2.0, "ünïcode ☃::b": 1e-05, "big": 1e22}
    assert record_text(seconds) == json.dumps({"seconds": seconds}, indent=1) + "\n"
    assert record_text({"one": 1.5}) == '{\n "seconds": {\n  "one": 1.5\n }\n}\n'
