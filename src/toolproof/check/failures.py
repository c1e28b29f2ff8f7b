"""How a checker words a failure: one constructor for the failures of every check, one way to list names."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from toolproof.core.gofmt import quote
from toolproof.model.result import Failure, FailureKind


def fail(
    said: str | None,
    message: str,
    expected: Any = None,
    actual: Any = None,
    *,
    check: str | None = None,
    kind: FailureKind = FailureKind.EXPECTATION,
    **details: Any,
) -> Failure:
    """A failure (an unmet expectation unless `kind` says otherwise) whose message starts `said: ` (as given
    when `said` is None), of the check `check` (default: `said`), with `details`."""
    return Failure(
        kind=kind,
        check=check or said,
        message=f"{said}: {message}" if said else message,
        expected=expected,
        actual=actual,
        details=details,
    )


def listed(items: Iterable[str], empty: str = "") -> str:
    """The items quoted (each cut to 80 characters) and comma-separated; `empty` when there are none."""
    return ", ".join(quote(item, 80) for item in items) or empty
