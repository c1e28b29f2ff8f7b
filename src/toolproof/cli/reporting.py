"""What the CI options change about a command's exit status: --threshold and --baseline."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from toolproof.exit_codes import ExitCode

if TYPE_CHECKING:
    from toolproof.api import SuiteResult
    from toolproof.report.baseline import Entry


def gated(args: argparse.Namespace, result: SuiteResult, status: int) -> int:
    """The exit status `status` of a command's run, decided again by --threshold and --baseline.

    Without --threshold: 1 instead of 0 when --baseline finds a regression. With --threshold (ci): a usage or
    load error (2), nothing run (5) or a stop by signal stays; else 1 when the pass rate of the non-skipped
    cases is below the threshold or, with --fail-on-regression, a case regressed; else 0. A shard
    (--shard) with no case but skipped ones passes: the threshold is for the merged run.
    """
    if status not in (ExitCode.OK, ExitCode.FAILED):
        return status
    baseline = getattr(args, "baseline", None)
    regressed = baseline is not None and _regressed(baseline, result)
    threshold = getattr(args, "pass_percent", None)
    if threshold is None:
        return ExitCode.FAILED if regressed else status
    from toolproof.report.gate import meets_threshold, pass_percentage

    if pass_percentage(result.results) is None:  # nothing counted; a shard may hold no case, or only skips
        return status if result.sharded is not None else ExitCode.NO_TESTS
    if not meets_threshold(result.results, threshold):
        return ExitCode.FAILED
    return ExitCode.FAILED if regressed and getattr(args, "fail_on_regression", False) else ExitCode.OK


def _regressed(baseline: dict[str, Entry], result: SuiteResult) -> bool:
    from toolproof.report.baseline import compare  # loaded only under --baseline

    return bool(compare(baseline, result.results).regressions)
