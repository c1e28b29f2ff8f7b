"""pass@k, pass^k and the verdict over trials."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.unit.agent.builders import case, evaluate_case, run

from toolproof.check.scenario import Evaluation
from toolproof.check.trials import combine, combine_trials, pass_at_k, pass_hat_k, trial_stats
from toolproof.model.result import CaseResult, Failure, FailureKind, Status
from toolproof.model.scenario import Precondition, TextCheck, ToolsCalled


@pytest.mark.parametrize(
    ("n", "c", "k", "at", "hat"),
    [
        (5, 5, 5, 1.0, 1.0),
        (5, 0, 1, 0.0, 0.0),
        (4, 2, 2, 5 / 6, 1 / 6),
        (10, 3, 1, 0.3, 0.3),
        (10, 3, 8, 1.0, 0.0),  # fewer failures than draws: some draw always passes
        (3, 2, 3, 1.0, 0.0),
    ],
)
def test_unbiased_estimators(n: int, c: int, k: int, at: float, hat: float) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(at)
    assert pass_hat_k(n, c, k) == pytest.approx(hat)


@pytest.mark.parametrize(("n", "c", "k"), [(3, 4, 1), (3, 1, 0), (3, 1, 4), (0, 0, 1)])
def test_impossible_counts_are_refused(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError, match="need 0 <= c <= n"):
        pass_at_k(n, c, k)


def test_stats_skip_skipped_trials_and_default_k_to_n() -> None:
    stats = trial_stats([Status.PASS, Status.SKIP, Status.FAIL, Status.PASS], threshold=0.6)
    assert (stats.n, stats.passed, stats.k) == (3, 2, 3)
    assert stats.ok  # 2/3 >= 0.6
    assert not trial_stats([Status.PASS, Status.FAIL], threshold=1.0).ok
    with pytest.raises(ValueError, match="no trial ran"):
        trial_stats([Status.SKIP])
    with pytest.raises(ValueError, match="between 0 and 1"):
        trial_stats([Status.PASS], threshold=1.5)


def result(trial: int, status: Status, message: str = "") -> CaseResult:
    failure = Failure(kind=FailureKind.EXPECTATION, message=message, check="text") if message else None
    return CaseResult(
        name="c", file=Path("c.yaml"), status=status, failure=failure, trial=trial, duration_s=1.0
    )


def test_combine_passes_at_the_threshold_and_lists_failing_trials() -> None:
    trials = [result(1, Status.PASS), result(2, Status.FAIL, "no milk"), result(3, Status.PASS)]
    passed = combine(trials, threshold=0.6)
    assert passed.status is Status.PASS and passed.failure is None
    assert passed.duration_s == 3.0
    assert passed.trials is not None and passed.trials.statuses == (Status.PASS, Status.FAIL, Status.PASS)
    failed = combine(trials)
    assert failed.status is Status.FAIL
    assert failed.failure is not None
    assert failed.failure.message.splitlines() == [
        "1 of 3 trials did not pass (needed 100%)",
        "trial 2: no milk",
    ]
    assert failed.failure.details["trials"][1] == {"trial": 2, "status": "FAIL", "message": "no milk"}


def test_combine_errors_only_when_nothing_passed_and_keeps_a_skip() -> None:
    assert combine([result(1, Status.ERROR, "x"), result(2, Status.FAIL, "y")]).status is Status.ERROR
    assert combine([result(1, Status.ERROR, "x"), result(2, Status.PASS)]).status is Status.FAIL
    skipped = combine([result(1, Status.SKIP), result(2, Status.SKIP)])
    assert skipped.status is Status.SKIP and skipped.trials is None


def test_per_check_thresholds_judge_each_check_over_the_trials_it_ran_in() -> None:
    flaky = ToolsCalled(tools=("search",), pass_threshold=0.5)
    strict = TextCheck(op="contains", values=("ok",))
    agent_case = case(flaky, strict)
    runs = [run("search", reply="ok"), run(reply="ok"), run("search", reply="ok"), run(reply="ok")]
    evaluations = [evaluate_case(agent_case, each) for each in runs]
    passed = combine_evaluations(evaluations)
    assert passed.status is Status.PASS and passed.failure is None
    assert passed.trials is not None and (passed.trials.n, passed.trials.passed) == (4, 2)
    whole_trials = combine([e.case_result(trial=n) for n, e in enumerate(evaluations, 1)])
    assert whole_trials.status is Status.FAIL  # the whole-trial rule would fail it
    once = [evaluate_case(agent_case, run("search", reply="ok"))] + [
        evaluate_case(agent_case, run(reply="ok")) for _ in range(3)
    ]
    failed = combine_evaluations(once)
    assert failed.status is Status.FAIL and failed.failure is not None
    assert failed.failure.message == "tools_called: search: passed 1 of 4 trials (needed 50%)"
    strict_fails = [evaluate_case(agent_case, run("search", reply="no")), *evaluations[:3]]
    short = combine_evaluations(strict_fails, threshold=1.0).failure
    assert short is not None and "response contains: ok: passed 3 of 4 trials (needed 100%)" in short.message


def combine_evaluations(evaluations: list[Evaluation], threshold: float = 1.0) -> CaseResult:
    """The trials' verdict when each of them ran to its end."""
    results = [evaluation.case_result(trial=number) for number, evaluation in enumerate(evaluations, 1)]
    return combine_trials(results, evaluations, threshold=threshold)


def test_a_trial_that_did_not_finish_fails_every_check() -> None:
    agent_case = case(ToolsCalled(tools=("search",), pass_threshold=0.5))
    finished = evaluate_case(agent_case, run("search"))
    crashed = result(2, Status.FAIL, "the server went away")
    half = combine_trials([finished.case_result(trial=1), crashed], [finished, None])
    assert half.status is Status.PASS  # 1 of 2 trials is the 50% asked
    third = result(3, Status.ERROR, "timed out")
    short = combine_trials([finished.case_result(trial=1), crashed, third], [finished, None, None])
    assert short.status is Status.FAIL and short.failure is not None
    assert short.failure.message == "tools_called: search: passed 1 of 3 trials (needed 50%)"


def test_without_per_check_thresholds_the_whole_trial_rule_stands() -> None:
    agent_case = case(ToolsCalled(tools=("search",)), TextCheck(op="contains", values=("ok",)))
    evaluations = [evaluate_case(agent_case, each) for each in (run("search", reply="no"), run(reply="ok"))]
    assert combine_evaluations(evaluations, threshold=0.5).status is Status.FAIL
    skipped_check = case(
        ToolsCalled(tools=("x",), pass_threshold=0.5, when=Precondition(any_tool_called=True))
    )
    assert combine_evaluations([evaluate_case(skipped_check, run(reply="a"))]).status is Status.SKIP
