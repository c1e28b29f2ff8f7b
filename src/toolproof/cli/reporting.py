"""What the CI options change about which cases a command runs: first or only the failed ones (--lf, --ff).
The exit status under --threshold and --baseline is the result's (`report/gate.py`)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def prioritised(items: Sequence[T], node_id: Callable[[T], str | None], args: argparse.Namespace) -> list[T]:
    """The items to run under --last-failed / --failed-first (all, in order, without either)."""
    from toolproof.report.history import last_failed, prioritise

    only = getattr(args, "last_failed", False)
    if not only and not getattr(args, "failed_first", False):
        return list(items)
    return prioritise(items, node_id, last_failed(), only=only)
