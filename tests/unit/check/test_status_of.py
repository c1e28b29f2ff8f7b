"""One rule turns a failure's kind into a case's status, and so into the exit status, for every command."""

from __future__ import annotations

from toolproof.api.results import exit_code_of
from toolproof.exit_codes import ExitCode
from toolproof.model.result import CaseResult, FailureKind, Status, status_of


def test_only_a_case_that_cannot_run_or_be_judged_as_set_up_is_an_error() -> None:
    assert {kind: status_of(kind) for kind in FailureKind} == {
        kind: Status.ERROR if kind is FailureKind.CONFIG else Status.FAIL for kind in FailureKind
    }


def test_the_status_gives_the_exit_status() -> None:
    def exit_for(kind: FailureKind) -> int:
        return exit_code_of([CaseResult(name="c", file="f", status=status_of(kind))])

    assert exit_for(FailureKind.TRANSPORT) == ExitCode.FAILED  # a server's or an agent's broken connection
    assert exit_for(FailureKind.CONFIG) == ExitCode.USAGE  # a load error, a cassette, the judge failing


def test_a_judge_that_fails_is_a_config_failure() -> None:
    """The judge is part of the setup, not what is tested: its failure is an ERROR (exit status 2)."""
    from tests.unit.agent.builders import case, evaluate_case, run

    from toolproof.check.judge import JudgeRequest
    from toolproof.model.scenario import JudgeCheck

    def broken(request: JudgeRequest) -> str:
        raise ConnectionError("provider down")

    (outcome,) = evaluate_case(case(JudgeCheck(criteria="x")), run(reply="y"), broken).outcomes
    assert outcome.failure is not None and outcome.failure.kind is FailureKind.CONFIG
    assert outcome.status is status_of(outcome.failure.kind) is Status.ERROR
