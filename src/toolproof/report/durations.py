"""`--durations N`: the slowest cases, printed when the run finishes, as pytest prints them."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TextIO

from toolproof.core.sanitize import Scrubber
from toolproof.model.events import Event, RunFinished
from toolproof.report.describe import case_ids, format_duration, one_line


class DurationsReport:
    """Prints the `count` slowest cases (every case when `count` is 0) on `stdout`."""

    def __init__(self, count: int, *, stdout: TextIO | None = None, secrets: Iterable[str] = ()) -> None:
        self._count, self._stdout, self._scrub = count, stdout, Scrubber(secrets)

    def handle(self, event: Event) -> None:
        if not isinstance(event, RunFinished) or not event.results:
            return
        ranked = sorted(
            zip(event.results, case_ids(event.results), strict=True), key=lambda pair: -pair[0].duration_s
        )
        shown = ranked[: self._count] if self._count else ranked
        title = "slowest durations" if self._count == 0 else f"slowest {len(shown)} durations"
        lines = [f"{title}:"]
        lines += [f"  {format_duration(r.duration_s):>8}  {one_line(self._scrub(node))}" for r, node in shown]
        stream = sys.stdout if self._stdout is None else self._stdout
        stream.write("\n".join(lines) + "\n")
        stream.flush()
