"""The badge: a shields.io endpoint document `{schemaVersion, label, message: "passed/total", color}`.

As in mcp-assert, trials count one by one (15/15 for 5 cases of 3 trials); skipped cases do not count.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import TextIO

from toolproof.core.writing import write_best_effort
from toolproof.model.events import Event, RunFinished
from toolproof.model.result import CaseResult, Status


def badge_document(results: Sequence[CaseResult], label: str = "toolproof") -> str:
    passed = total = 0
    for result in results:
        if result.trials is not None:
            passed, total = passed + result.trials.passed, total + result.trials.n
        elif result.status is not Status.SKIP:
            passed, total = passed + result.passed, total + 1
    if total == 0:  # nothing ran (exit status 5): not a green badge
        colour = "lightgrey"
    else:
        colour = "brightgreen" if passed == total else "yellow" if passed * 100 >= 80 * total else "red"
    document = {"schemaVersion": 1, "label": label, "message": f"{passed}/{total}", "color": colour}
    return json.dumps(document, indent=2) + "\n"


class BadgeReport:
    """Writes the badge document to `path` when the run finishes."""

    def __init__(self, path: str | os.PathLike[str], *, stderr: TextIO | None = None) -> None:
        self._path, self._stderr = path, stderr

    def handle(self, event: Event) -> None:
        if isinstance(event, RunFinished):
            write_best_effort(self._path, badge_document(event.results), atomic=True, stderr=self._stderr)
