"""The token limit check: the scope's summed usage (`check/usage.py`) within every limit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolproof.check.registry import NotEvaluated, Verdict, checker
from toolproof.model.result import Failure, FailureKind
from toolproof.model.scenario import TokenLimitCheck
from toolproof.model.transcript import Usage

if TYPE_CHECKING:
    from toolproof.check.run_view import Scoped


def token_limit(check: TokenLimitCheck, usage: Usage | None) -> Failure | NotEvaluated | None:
    """The scope's summed usage (see `summed_usage`) within every limit; not evaluated when the run recorded
    no usage (or not the limited kind)."""
    if usage is None:
        return NotEvaluated("no token usage found in the run")
    limits = [
        ("total", check.max_total, usage.total),
        ("input", check.max_input, usage.input_tokens),
        ("output", check.max_output, usage.output_tokens),
    ]
    over: list[str] = []
    unknown: list[str] = []
    for name, limit, used in limits:
        if limit is None:
            continue
        if used is None:
            unknown.append(name)
        elif used > limit:
            over.append(f"{name} tokens {used} > {limit}")
    seen = {"input": usage.input_tokens, "output": usage.output_tokens, "total": usage.total}
    if over:
        return Failure(
            kind=FailureKind.EXPECTATION,
            message=f"token limit exceeded: {', '.join(over)}",
            expected={name: limit for name, limit, _ in limits if limit is not None},
            actual=seen,
        )
    if unknown:
        return NotEvaluated(f"the run's usage does not report {' or '.join(unknown)} tokens")
    return None


# --- registered checker -------------------------------------------------------------------------------------


def _describe(check: TokenLimitCheck) -> str:
    limits = [
        f"{name} <= {limit}"
        for name, limit in zip(
            ("total", "input", "output"), (check.max_total, check.max_input, check.max_output), strict=True
        )
        if limit
    ]
    return f"token_limit {', '.join(limits)}"


@checker(TokenLimitCheck, describe=_describe, looks_at="reply")
def _token_limit(check: TokenLimitCheck, at: Scoped) -> Verdict:
    return token_limit(check, at.usage)
