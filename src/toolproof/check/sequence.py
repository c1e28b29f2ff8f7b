"""Sequence checks: the order in which tools were called (ordered, adjacent, exact, unordered, subset,
superset, any of several, or a sequence that must not occur)."""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from toolproof.check.failures import fail
from toolproof.check.registry import Verdict, checker
from toolproof.check.steps import Steps, arrow, shown
from toolproof.model.result import Failure
from toolproof.model.scenario import SequenceCheck

if TYPE_CHECKING:
    from toolproof.check.run_view import Scoped

# --- sequences ----------------------------------------------------------------------------------------------


def ordered_prefix(expected: Sequence[str], steps: Steps) -> int:
    """How many leading items of `expected` occur in order (greedy, leftmost)."""
    cursor = 0
    for matched, name in enumerate(expected):
        positions = steps.where.get(name)
        if not positions:
            return matched
        found = bisect.bisect_left(positions, cursor)
        if found == len(positions):
            return matched
        cursor = positions[found] + 1
    return len(expected)


def _adjacent(expected: Sequence[str], steps: Steps) -> int | None:
    """The index where `expected` occurs as a contiguous run, or None."""
    if not expected:
        return 0
    size = len(expected)
    target = tuple(expected)
    for start in steps.where.get(expected[0], []):
        if steps.names[start : start + size] == target:
            return start
    return None


def _holds(mode: str, expected: Sequence[str], steps: Steps) -> bool:
    if mode == "ordered":
        return ordered_prefix(expected, steps) == len(expected)
    if mode == "adjacent":
        return _adjacent(expected, steps) is not None
    if mode == "exact":
        return len(expected) == len(steps.names) and tuple(expected) == steps.names
    wanted = Counter(expected)
    if mode == "unordered":
        return wanted == steps.counts
    if mode == "subset":
        return all(count <= wanted[name] for name, count in steps.counts.items())
    return all(steps.counts[name] >= count for name, count in wanted.items())  # superset


def sequence(check: SequenceCheck, steps: Steps) -> Failure | None:
    """The run's tool-name sequence relates to one of the reference sequences (or, forbidden, to none)."""
    holding = [expected for expected in check.sequences if _holds(check.mode, expected, steps)]
    if check.forbidden:
        if not holding:
            return None
        return _forbidden_sequence(check, holding[0], steps)
    if holding:
        return None
    if len(check.sequences) == 1:
        return _sequence_failure(check.mode, check.sequences[0], steps)
    allowed = " | ".join(f"[{', '.join(each)}]" for each in check.sequences)
    return fail(
        None,
        f"Tool sequence did not match any allowed sequence (mode {check.mode}; allowed: {allowed}; "
        f"called: {arrow(steps.names)})",
        [list(each) for each in check.sequences],
        list(steps.names[:1000]),
        mode=check.mode,
        called_sequence=list(steps.names[:1000]),
    )


def _forbidden_sequence(check: SequenceCheck, expected: Sequence[str], steps: Steps) -> Failure:
    where = ""
    if check.mode == "adjacent":
        where = f" at index {_adjacent(expected, steps)}"
    return fail(
        None,
        f"Forbidden tool sequence occurred ({check.mode}): {arrow(expected)}{where}; called: "
        f"{arrow(steps.names)}",
        list(expected),
        list(steps.names[:1000]),
        mode=check.mode,
        forbidden_sequence=list(expected),
    )


def _sequence_failure(mode: str, expected: Sequence[str], steps: Steps) -> Failure:
    called = list(steps.names[:1000])
    if mode == "ordered":
        matched = ordered_prefix(expected, steps)
        first = expected[matched]
        if first not in steps.where:
            message = f"Required tool in sequence not used: {first}"
        else:
            message = f"Tool sequence order was not satisfied: {arrow(expected)}"
        return fail(
            None,
            f"{message} (in order: {arrow(expected[:matched]) if matched else 'nothing'}; called: "
            f"{arrow(steps.names)})",
            list(expected),
            called,
            mode=mode,
            matched=list(expected[:matched]),
            first_unmatched=first,
        )
    if mode == "adjacent":
        return fail(
            None,
            f"Tools were not called one right after another: {arrow(expected)} (called: "
            f"{arrow(steps.names)})",
            list(expected),
            called,
            mode=mode,
        )
    if mode == "exact":
        index = next(
            (i for i, (a, b) in enumerate(zip(expected, steps.names, strict=False)) if a != b),
            min(len(expected), len(steps.names)),
        )
        seen = steps.names[index] if index < len(steps.names) else "(end of calls)"
        wanted = expected[index] if index < len(expected) else "(end of calls)"
        return fail(
            None,
            f"Tool sequence did not match any allowed sequence (allowed: {arrow(expected)}; called: "
            f"{arrow(steps.names)}; first difference at index {index}: expected {wanted}, got "
            f"{seen})",
            list(expected),
            called,
            mode=mode,
            first_difference={"index": index, "expected": wanted, "actual": seen},
        )
    wanted_counts = Counter(expected)
    missing = sorted((wanted_counts - steps.counts).elements())
    extra = sorted((steps.counts - wanted_counts).elements())
    if mode == "subset":
        missing = []
    if mode == "superset":
        extra = []
    parts = ([f"missing {shown(missing)}"] if missing else []) + (
        [f"not allowed {shown(extra)}"] if extra else []
    )
    return fail(
        None,
        f"Tool calls do not form the {mode} of [{', '.join(expected)}]: {'; '.join(parts)} "
        f"(called: {arrow(steps.names)})",
        list(expected),
        called,
        mode=mode,
        missing_calls=missing,
        extra_calls=extra,
    )


# --- registered checker -------------------------------------------------------------------------------------


def _describe(check: SequenceCheck) -> str:
    shown = " | ".join(" -> ".join(each) or "(none)" for each in check.sequences)
    return f"{'forbidden ' if check.forbidden else ''}sequence ({check.mode}): {shown}"


@checker(
    SequenceCheck, describe=_describe, looks_at=lambda c: (tool for each in c.sequences for tool in each)
)
def _sequence(check: SequenceCheck, at: Scoped) -> Verdict:
    return sequence(check, at.calls)
