"""What a run said besides its cases, kept for the reports written when it finishes (JSON, JUnit): its
warnings, the documents that did not load, and why it stopped early."""

from __future__ import annotations

from dataclasses import dataclass, field

from toolproof.core.sanitize import Scrubber
from toolproof.model.events import Event, LoadFailed, RunStopped, Warned


@dataclass
class RunNotes:
    """Collects `Warned`, `LoadFailed` and `RunStopped` events as they come."""

    warnings: list[str] = field(default_factory=list)
    load_errors: list[LoadFailed] = field(default_factory=list)
    stopped: RunStopped | None = None

    def note(self, event: Event) -> None:
        if isinstance(event, Warned):
            self.warnings.append(event.message)
        elif isinstance(event, LoadFailed):
            self.load_errors.append(event)
        elif isinstance(event, RunStopped):
            self.stopped = event

    def as_dict(self, scrub: Scrubber) -> dict[str, object]:
        """The notes as JSON values, each text cleaned by `scrub`; only the kinds the run had."""
        found: dict[str, object] = {}
        if self.warnings:
            found["warnings"] = [scrub(warning) for warning in self.warnings]
        if self.load_errors:
            found["load_errors"] = [
                {
                    "file": scrub(failed.file.as_posix()),
                    "line": failed.line,
                    "problems": [scrub(problem) for problem in failed.problems],
                }
                for failed in self.load_errors
            ]
        if self.stopped is not None:
            found["stopped"] = {"reason": scrub(self.stopped.reason), "unfinished": self.stopped.unfinished}
        return found

    def lines(self) -> list[str]:
        """The notes as lines of text: `warning: ...`, `load error: FILE:LINE:COLUMN: ...`, `stopped ...`."""
        found = [f"warning: {warning}" for warning in self.warnings]
        found += [f"load error: {problem}" for failed in self.load_errors for problem in failed.problems]
        if self.stopped is not None:
            found.append(f"stopped {self.stopped.reason}; {self.stopped.unfinished} cases not run")
        return found
