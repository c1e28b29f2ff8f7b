"""`--resume`: the stopped run's results and the new ones in run order, without results of other cases."""

from __future__ import annotations

from pathlib import Path

from toolproof.model.result import CaseResult, Status
from toolproof.report.resume import Resume


def _result(name: str, status: Status = Status.PASS) -> CaseResult:
    return CaseResult(name=name, file=Path("suite/a.yaml"), status=status)


def test_previous_results_take_their_places_and_foreign_ones_are_dropped() -> None:
    order = tuple(f"suite/a.yaml::{name}" for name in ("one", "two", "three", "four"))
    previous = (_result("three", Status.FAIL), _result("one"), _result("gone"))  # `gone` left the suite
    resume = Resume(previous, order)
    assert resume.finished == {"suite/a.yaml::one", "suite/a.yaml::three", "suite/a.yaml::gone"}
    combined = resume.combined([_result("four"), _result("two")])
    assert [(result.name, result.status) for result in combined] == [
        ("one", Status.PASS),
        ("two", Status.PASS),
        ("three", Status.FAIL),
        ("four", Status.PASS),
    ]
