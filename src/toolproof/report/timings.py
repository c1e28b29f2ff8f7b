"""How long each case took when it last ran, kept in `.toolproof/durations.json` under the working directory,
so that the next run can start the slowest cases first.

After a run, every case that ran (load errors and skips aside) gets its new duration; cases that did not run
keep theirs, the most recently recorded first, up to `KEPT` entries in all (the cases of one run are always
kept), so that a record of renamed, deleted or temporary cases does not grow without end.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TextIO

from toolproof.core.writing import ignored_directory, warn, write_atomic
from toolproof.model.events import Event, RunFinished
from toolproof.model.result import Status

DURATIONS = "durations.json"
KEPT = 5000
"""How many durations the record keeps, beyond those of the run that writes it (about 1 MB)."""


def last_durations(directory: Path) -> dict[str, float]:
    """Seconds per node id (`file::name`) from the last run of each case; empty when nothing is recorded."""
    try:
        document = json.loads((directory / DURATIONS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    seconds = document.get("seconds") if isinstance(document, dict) else None
    if not isinstance(seconds, dict):
        return {}
    return {
        node: float(value)
        for node, value in seconds.items()
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0
    }


class DurationsWriter:
    """Records each case's duration when the run finishes (a directory that cannot be written is warned
    about)."""

    def __init__(self, directory: Path, *, stderr: TextIO | None = None) -> None:
        self._directory, self._stderr = directory, stderr

    def handle(self, event: Event) -> None:
        if not isinstance(event, RunFinished):
            return
        ran = {
            result.node_id: round(result.duration_s, 3)
            for result in event.results
            if result.status in (Status.PASS, Status.FAIL)
        }
        if not ran:
            return
        earlier = [(node, took) for node, took in last_durations(self._directory).items() if node not in ran]
        seconds = dict(earlier[max(0, len(earlier) + len(ran) - KEPT) :]) | ran  # the oldest go first
        try:
            ignored_directory(self._directory)
            write_atomic(self._directory / DURATIONS, record_text(seconds))
        except OSError as error:
            warn(f"could not record durations in {self._directory}: {error.strerror or error}", self._stderr)


def record_text(seconds: dict[str, float]) -> str:
    """The record of `seconds` (not empty) as `json.dumps({"seconds": seconds}, indent=1)` writes it, one
    entry a line, made by the JSON module's C encoder: with `indent` the module encodes in Python, which for a
    full record (`KEPT` entries) took a one-case `check` 10 ms."""
    entries = json.dumps(seconds, separators=(",\n  ", ": "))
    return '{\n "seconds": {\n  ' + entries[1:-1] + "\n }\n}\n"
