"""An expected-failures file for conformance: the baseline of a run (`--save-baseline FILE`) read back with
`--baseline FILE`, so a server can adopt the probe before it passes everything. A requirement that failed in
the baseline and fails again does not fail the run; one that fails now but did not then does."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from toolproof.model.result import CaseResult, Status


class Entry(Protocol):
    """A baseline entry, as the baseline reader gives it: its status is what the case did then."""

    @property
    def status(self) -> str: ...


def as_judged(results: list[CaseResult], baseline: Mapping[str, Entry] | None) -> list[CaseResult]:
    """`results` as the exit status judges them: each failure the baseline expects counts as passed (the
    reports still show it failed)."""
    if baseline is None:
        return results
    judged = []
    for result in results:
        entry = baseline.get(result.name)
        if result.status is Status.FAIL and entry is not None and entry.status == Status.FAIL.value:
            reason = f"expected to fail: {result.failure.message if result.failure else ''}".rstrip(": ")
            result = result.model_copy(update={"status": Status.PASS, "failure": None, "reason": reason})
        judged.append(result)
    return judged
