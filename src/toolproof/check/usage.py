"""Token usage of a scope: the sum of its turns' `Usage`, which the sources read from what they observed
(`check/tokens.py` checks it against limits)."""

from __future__ import annotations

from collections.abc import Sequence

from toolproof.model.transcript import Turn, Usage


def summed_usage(turns: Sequence[Turn]) -> Usage | None:
    """The usage of all `turns` together, None when none recorded any."""
    return Usage.summed(turn.usage for turn in turns if turn.usage is not None)
