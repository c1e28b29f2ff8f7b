"""Whether a run stopped before every case ran, as its events tell it."""

from __future__ import annotations

from toolproof.model.events import Event, RunFinished, RunStarted, RunStopped


class CutShort:
    """Follows a run's events (`see`) to tell, when it finishes (`ran`), whether cases were left unrun."""

    def __init__(self) -> None:
        self._total = 0
        self._unfinished = 0

    def see(self, event: Event) -> None:
        if isinstance(event, RunStarted):
            self._total, self._unfinished = event.total, 0
        elif isinstance(event, RunStopped):
            self._unfinished = event.unfinished

    def ran(self, finished: RunFinished) -> str | None:
        """"X of Y" cases when the run left cases unrun (a stop signal, -x, --maxfail), else None. The
        scheduler says so (`RunStopped`: a case may give several results, as `check` does); a run reported
        all at once says it by giving fewer results than it announced."""
        unfinished, self._unfinished = self._unfinished, 0
        if unfinished:
            return f"{self._total - unfinished} of {self._total}"
        if len(finished.results) < self._total:
            return f"{len(finished.results)} of {self._total}"
        return None
