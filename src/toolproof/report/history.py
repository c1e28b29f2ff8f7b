"""What failed last time, kept in `.toolproof/lastfailed.json` under the working directory (which ignores
itself in git), for `--last-failed` and `--failed-first`.

After a run, a case that failed or errored is added and a case that ran and passed (or was skipped) is
dropped; cases that did not run keep their entry, as pytest's cache does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TextIO

from toolproof.core.writing import ignored_directory, warn, write_atomic
from toolproof.model.events import Event, RunFinished
from toolproof.model.result import Status

STATE_DIR = Path(".toolproof")
LAST_FAILED = "lastfailed.json"


def last_failed(directory: Path = STATE_DIR) -> set[str]:
    """The node ids (`file::name`) that failed when they last ran; empty when nothing is recorded."""
    try:
        document = json.loads((directory / LAST_FAILED).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    failed = document.get("failed") if isinstance(document, dict) else None
    return {item for item in failed if isinstance(item, str)} if isinstance(failed, list) else set()


class LastFailedWriter:
    """Updates the last-failed record when the run finishes (a directory that cannot be written is warned
    about once)."""

    def __init__(self, directory: Path = STATE_DIR, *, stderr: TextIO | None = None) -> None:
        self._directory, self._stderr = directory, stderr

    def handle(self, event: Event) -> None:
        if not isinstance(event, RunFinished):
            return
        failed = last_failed(self._directory)
        for result in event.results:
            if result.status in (Status.FAIL, Status.ERROR):
                failed.add(result.node_id)
            else:
                failed.discard(result.node_id)
        try:
            ignored_directory(self._directory)
            write_atomic(
                self._directory / LAST_FAILED, json.dumps({"failed": sorted(failed)}, indent=2) + "\n"
            )
        except OSError as error:
            warn(
                f"could not record the failed cases in {self._directory}: {error.strerror or error}",
                self._stderr,
            )
