"""Reliability over repeated trials of one case: pass@k, pass^k, and its verdict under a pass threshold.

With n trials of which c passed, the unbiased estimators are
pass@k = 1 - C(n-c, k) / C(n, k)  (the chance that at least one of k trials drawn from the n passes)
and pass^k = C(c, k) / C(n, k)     (the chance that all k of them pass).

A case some of whose checks carry their own `pass_threshold` (PromptKit) is judged check by check instead:
each check must pass at least its threshold (else the run-wide one) of the trials in which it was evaluated; a
trial that did not run to its end (an error, a timeout, a run stopped early) counts as failing every check.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb
from typing import TYPE_CHECKING

from toolproof.model.result import CaseResult, Failure, FailureKind, Status, TrialStats

if TYPE_CHECKING:
    from toolproof.check.scenario import Evaluation


def pass_at_k(n: int, c: int, k: int) -> float:
    """The chance that at least one of `k` of the `n` trials (of which `c` passed) passes."""
    _check(n, c, k)
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """The chance that all `k` of the `n` trials (of which `c` passed) pass (pass^k)."""
    _check(n, c, k)
    return comb(c, k) / comb(n, k)


def _check(n: int, c: int, k: int) -> None:
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")


def trial_stats(statuses: Sequence[Status], *, k: int | None = None, threshold: float = 1.0) -> TrialStats:
    """The statistics of one case's trial verdicts; `k` defaults to (and is capped at) the number of trials.

    Skipped trials do not count. Raises ValueError when no trial counts or the threshold is outside [0, 1].
    """
    counted = tuple(status for status in statuses if status is not Status.SKIP)
    if not counted:
        raise ValueError("no trial ran")
    if not 0 <= threshold <= 1:
        raise ValueError(f"the pass threshold must be between 0 and 1, got {threshold}")
    n = len(counted)
    c = sum(status is Status.PASS for status in counted)
    k = n if k is None else min(k, n)
    return TrialStats(
        n=n,
        passed=c,
        k=k,
        pass_at_k=pass_at_k(n, c, k),
        pass_hat_k=pass_hat_k(n, c, k),
        threshold=threshold,
        statuses=counted,
    )


def combine(trials: Sequence[CaseResult], *, k: int | None = None, threshold: float = 1.0) -> CaseResult:
    """One result for all trials of a case: PASS when at least `threshold` of them passed, else FAIL (ERROR
    when a trial errored and none passed); the failing trials' messages in the failure, the stats in
    `trials`. A case whose every trial was skipped stays one skip."""
    first = trials[0]
    ran = [result for result in trials if result.status is not Status.SKIP]
    if not ran:
        return first
    stats = trial_stats([result.status for result in trials], k=k, threshold=threshold)
    if stats.ok:
        return first.model_copy(update={"status": Status.PASS, "failure": None, **_totals(trials, stats)})
    bad = [result for result in ran if result.status is not Status.PASS]
    lines = [f"trial {result.trial}: {_message(result)}" for result in bad]
    worst = next((result.failure for result in bad if result.failure is not None), None)
    failure = Failure(
        kind=worst.kind if worst else FailureKind.EXPECTATION,
        message=f"{len(bad)} of {stats.n} trials did not pass (needed {stats.threshold:.0%})\n"
        + "\n".join(lines),
        check=worst.check if worst else None,
        details={"trials": [_trial_entry(result) for result in trials]},
    )
    errored = stats.passed == 0 and any(result.status is Status.ERROR for result in ran)
    status = Status.ERROR if errored else Status.FAIL
    stderr = next((result.stderr for result in bad if result.stderr), "")
    steps = bad[0].steps or first.steps  # what the first failing trial did
    return first.model_copy(
        update={
            "status": status,
            "failure": failure,
            "stderr": stderr,
            "steps": steps,
            **_totals(trials, stats),
        }
    )


def _totals(trials: Sequence[CaseResult], stats: TrialStats) -> dict[str, object]:
    return {"duration_s": sum(result.duration_s for result in trials), "trial": 1, "trials": stats}


def _message(result: CaseResult) -> str:
    return result.failure.message if result.failure else result.status.value


def _trial_entry(result: CaseResult) -> dict[str, object]:
    entry: dict[str, object] = {"trial": result.trial, "status": result.status.value}
    if result.failure is not None:
        entry["message"] = result.failure.message
    return entry


def combine_trials(
    results: Sequence[CaseResult],
    evaluations: Sequence[Evaluation | None],
    *,
    k: int | None = None,
    threshold: float = 1.0,
) -> CaseResult:
    """One result for one case's trials: their results, and for each the evaluation of its checks (None for a
    trial that did not run to its end).

    Without per-check thresholds this is `combine` over the results. With them, the case passes when every
    check passed at least its `pass_threshold` (else `threshold`) of the trials that evaluated it (skipped
    ones do not count, unfinished ones count as failed); the pass@k statistics still count whole trials.
    """
    overall = combine(results, k=k, threshold=threshold)
    checks = next((e.outcomes for e in evaluations if e is not None), ())
    if overall.status is Status.SKIP or all(o.check.pass_threshold is None for o in checks):
        return overall
    short: list[str] = []
    for index, outcome in enumerate(checks):
        statuses = [Status.FAIL if e is None else e.outcomes[index].status for e in evaluations]
        counted = [status for status in statuses if status is not Status.SKIP]
        if not counted:
            continue
        needed = threshold if outcome.check.pass_threshold is None else outcome.check.pass_threshold
        passed = sum(status is Status.PASS for status in counted)
        if passed < needed * len(counted) - 1e-9:
            short.append(f"{outcome.label}: passed {passed} of {len(counted)} trials (needed {needed:.0%})")
    if not short:
        return overall.model_copy(update={"status": Status.PASS, "failure": None})
    previous = overall.failure
    failure = Failure(
        kind=previous.kind if previous else FailureKind.EXPECTATION,
        message="\n".join(short),
        check=previous.check if previous else None,
        details={"trials": [_trial_entry(result) for result in results], "checks_short": short},
    )
    errored = all(result.status is Status.ERROR for result in results if result.status is not Status.SKIP)
    return overall.model_copy(update={"status": Status.ERROR if errored else Status.FAIL, "failure": failure})
