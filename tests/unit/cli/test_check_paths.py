"""`toolproof check`: which paths are cases and which are runs, said out loud; nothing checked exits 5."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from toolproof.cli import main

ROOT = Path(__file__).parents[3]
EXAMPLES = ROOT / "examples" / "agent"
CASE = EXAMPLES / "toolproof" / "support_agent.yaml"
TRACE = EXAMPLES / "traces" / "refund.transcript.json"


def test_the_last_trace_path_taken_as_the_cases_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    main(["check", "--trace", str(TRACE), str(CASE), "--skip-judge", "-q"])
    err = capsys.readouterr().err
    assert f"took {CASE} as the cases (the last path after --trace)" in err


def test_cases_given_apart_need_no_note(capsys: pytest.CaptureFixture[str]) -> None:
    main(["check", str(CASE), "--trace", str(TRACE), "--skip-judge", "-q"])
    assert "as the cases" not in capsys.readouterr().err


def test_a_recorded_run_beside_the_cases_is_not_a_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases"
    cases.mkdir()
    shutil.copy(CASE, cases)
    shutil.copy(TRACE, cases / "old_run.json")  # a run recorded earlier, left beside the cases
    report = tmp_path / "r.json"
    status = main(["check", str(cases), "--trace", str(TRACE), "--skip-judge", "-q", "--json", str(report)])
    err = capsys.readouterr().err
    assert "old_run.json: skipped, a recorded run rather than a case" in err
    results = json.loads(report.read_text())["results"]
    assert not [result for result in results if result["status"] == "ERROR"], results
    assert status in (0, 1)


def test_a_case_file_named_itself_is_never_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    named = tmp_path / "named.json"
    shutil.copy(TRACE, named)
    assert main(["check", str(named), "--trace", str(TRACE), "-q"]) == 2  # not a case: a load error
    assert "skipped" not in capsys.readouterr().err


def test_no_recorded_run_for_any_case_exits_5(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(CASE), "--trace", str(tmp_path), "--skip-judge"]) == 5
    err = capsys.readouterr().err
    assert "toolproof check: nothing ran: no case had a recorded run to check (exit status 5)" in err


def test_check_stops_after_the_case_of_the_first_failure_with_x(capsys: pytest.CaptureFixture[str]) -> None:
    main(["check", str(CASE), "--trace", str(TRACE), "--skip-judge", "-q", "--json", "-"])
    every = json.loads(capsys.readouterr().out)["results"]
    main(["check", str(CASE), "--trace", str(TRACE), "--skip-judge", "-q", "--json", "-", "-x"])
    stopped = json.loads(capsys.readouterr().out)["results"]
    first = next(index for index, result in enumerate(every) if result["status"] == "FAIL")

    def case_of(result: dict[str, str]) -> str:  # `case [run] › check`
        return result["name"].split(" › ")[0].split(" [")[0]

    ends = max(index for index, result in enumerate(every) if case_of(result) == case_of(every[first])) + 1
    assert ends < len(every)  # there is a case after it, which -x leaves unchecked
    assert [result["name"] for result in stopped] == [result["name"] for result in every[:ends]]


def test_a_case_with_nothing_to_check_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = tmp_path / "refund.yaml"
    case.write_text("name: refund\nturns:\n  - user: I want a refund\n")
    assert main(["check", str(case), "--trace", str(TRACE), "--skip-judge"]) == 5
    captured = capsys.readouterr()
    assert "nothing to check: the case has no expect: (in it or in its turns)" in captured.out
    assert "nothing ran: nothing to check: the case has no expect:" in captured.err
    assert "no case found" not in captured.err


def test_the_check_runs_without_the_cyclic_collector_and_leaves_it_as_it_found_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gc

    from toolproof import api

    seen: list[bool] = []
    checked = api.check_traces

    def recording(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        return checked(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(api, "check_traces", recording)
    assert gc.isenabled()
    assert main(["check", str(CASE), "--trace", str(TRACE), "--skip-judge", "-q"]) in (0, 1)
    assert seen == [False]
    assert gc.isenabled()
    gc.disable()
    try:
        main(["check", str(CASE), "--trace", str(TRACE), "--skip-judge", "-q"])
        assert not gc.isenabled()  # a caller's choice stands
    finally:
        gc.enable()
