"""The JSON report: the whole run as one document, or mcp-assert's `--json` array with `legacy=True`.

The document (`format: toolproof-report`, `format_version: 1`) is described in `docs/json-report.md`;
`toolproof report` reads it back (`report.json_read`), so it holds everything the other reports show.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TextIO

from toolproof._version import __version__
from toolproof.core.sanitize import Scrubber
from toolproof.core.writing import silence, warn, write_best_effort
from toolproof.model.events import Event, RunFinished, RunStarted
from toolproof.model.result import CaseResult, Failure, Status, Step
from toolproof.report.baseline import Entry, compare
from toolproof.report.describe import capped, case_ids, jsonable
from toolproof.report.gate import pass_percentage
from toolproof.report.reliability import reliability
from toolproof.report.run_notes import RunNotes
from toolproof.report.summary import Summary

if TYPE_CHECKING:
    from toolproof.load.shards import Sharded

STDOUT = "-"
FORMAT = "toolproof-report"
FORMAT_VERSION = 1


class JsonReport:
    """Writes the JSON document when the run finishes, to `path` or to stdout when `path` is `-`.

    Text fields are cleaned of escape sequences and secrets are masked; an expected, actual or details value
    longer than 64 KiB as text is cut, with a note of how much was left out. A shard's document (`sharded`)
    records the shard and the ids of the whole selection in run order, for merging. With `legacy=True` the
    document is mcp-assert's `--json` array: `{name, status, detail?, duration_ms, trial}` (ERROR becomes
    FAIL).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        secrets: Iterable[str] = (),
        *,
        legacy: bool = False,
        stdout: TextIO | None = None,
        stderr: TextIO | None = None,
        baseline: dict[str, Entry] | None = None,
        title: str | None = None,
        sharded: Sharded | None = None,
    ) -> None:
        self._path = path
        self._sharded = sharded
        self._scrub = Scrubber(secrets)
        self._legacy = legacy
        self._stdout = stdout
        self._stderr = stderr
        self._baseline = baseline
        self._title = title or "toolproof"
        self._titled = title is not None
        self._settings: dict[str, object] = {}
        self._notes = RunNotes()

    def handle(self, event: Event) -> None:
        if isinstance(event, RunStarted):
            self._settings = dict(event.settings)
            if not self._titled:
                self._title = event.title
        self._notes.note(event)
        if isinstance(event, RunFinished):
            self._write(self.render(event))

    def render(self, event: RunFinished) -> str:
        """The document for a finished run, as JSON text ending in a newline."""
        document: Any
        if self._legacy:
            document = [self._legacy_result(result) for result in event.results]
        else:
            summary = Summary.of(event.results, event.duration_s)
            found = reliability(event.results)
            document = {
                "format": FORMAT,
                "format_version": FORMAT_VERSION,
                "tool": "toolproof",
                "version": __version__,
                "title": self._scrub(self._title),
                "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
                **({"settings": self._scrub.value(jsonable(self._settings))} if self._settings else {}),
                "summary": {
                    "total": summary.total,
                    "passed": summary.passed,
                    "warned": summary.warned,
                    "failed": summary.failed,
                    "skipped": summary.skipped,
                    "errors": summary.errors,
                    "flaky": found.flaky if found else 0,
                    "pass_percentage": pass_percentage(event.results),
                    "duration_s": round(summary.duration_s, 3),
                },
                "reliability": {
                    "cases": len(found.rows),
                    "capable": found.capable,
                    "reliable": found.reliable,
                    "flaky": found.flaky,
                }
                if found
                else None,
                "baseline": self._comparison(event.results),
                **self._notes.as_dict(self._scrub),
                "results": [
                    self._result(result, node_id)
                    for result, node_id in zip(event.results, case_ids(event.results), strict=True)
                ],
            }
            if self._sharded is not None:  # what `toolproof report` needs to merge the shards
                document["shard"] = {
                    "index": self._sharded.shard.index,
                    "total": self._sharded.shard.total,
                    "order": [self._scrub(each) for each in self._sharded.order],
                }
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"

    def _result(self, result: CaseResult, node_id: str) -> dict[str, Any]:
        scrub = self._scrub
        entry: dict[str, Any] = {
            "node_id": scrub(node_id),
            "name": scrub(result.name),
            "file": scrub(result.file.as_posix()),
            "line": result.line,
            "status": result.status.value,
            "duration_ms": _millis(result.duration_s),
            "trial": result.trial,
            "failure": self._failure(result.failure) if result.failure else None,
            "reason": scrub(result.reason) if result.reason is not None else None,
            "stderr": scrub(result.stderr),
            "phases_ms": {scrub(name): _millis(seconds) for name, seconds in result.phases.items()},
            "flaky": result.trials is not None and result.trials.flaky,
            "trials": None,
            "steps": [self._step(step) for step in result.steps],
            "warnings": [scrub(warning) for warning in result.warnings],
        }
        if result.shared_server is not None:  # --reuse-server: cases with the same number shared a server
            entry["shared_server"] = result.shared_server
        if result.protocol is not None:  # the protocol revision spoken with the case's server
            entry["protocol"] = result.protocol
        if result.details:  # what a probe adds to its results (conformance: the official scenarios)
            entry["details"] = self._scrub.value(jsonable(result.details))
        if result.trials is not None:  # only on the one result that stands for several trials
            stats = result.trials
            entry["trials"] = {
                "n": stats.n,
                "passed": stats.passed,
                "k": stats.k,
                "pass_at_k": round(stats.pass_at_k, 6),
                "pass_hat_k": round(stats.pass_hat_k, 6),
                "pass_rate": round(stats.rate, 6),
                "threshold": stats.threshold,
                "statuses": [status.value for status in stats.statuses],
            }
        return entry

    def _step(self, step: Step) -> dict[str, Any]:
        scrub = self._scrub
        return {
            "kind": step.kind,
            "name": scrub(step.name),
            "request": capped(scrub.value(jsonable(step.request))),
            "response": capped(scrub.value(jsonable(step.response))),
            "is_error": step.is_error,
            "duration_ms": None if step.duration_ms is None else round(step.duration_ms, 3),
            "turn": step.turn,
            "checks": [scrub(check) for check in step.checks],
        }

    def _comparison(self, results: list[CaseResult]) -> dict[str, Any] | None:
        if self._baseline is None:
            return None
        found: dict[str, Any] = self._scrub.value(compare(self._baseline, results).as_dict())
        return found

    def _failure(self, failure: Failure) -> dict[str, Any]:
        return {
            "kind": failure.kind.value,
            "message": self._scrub(failure.message),
            "check": self._scrub(failure.check) if failure.check is not None else None,
            "expected": capped(self._scrub.value(jsonable(failure.expected))),
            "actual": capped(self._scrub.value(jsonable(failure.actual))),
            "details": capped(self._scrub.value(jsonable(failure.details))),
        }

    def _legacy_result(self, result: CaseResult) -> dict[str, Any]:
        detail = result.failure.message if result.failure else result.reason or ""
        entry: dict[str, Any] = {
            "name": self._scrub(result.name),
            "status": Status.FAIL.value if result.status is Status.ERROR else result.status.value,
        }
        if detail:
            entry["detail"] = self._scrub(detail)
        entry["duration_ms"] = int(result.duration_s * 1000)
        entry["trial"] = result.trial
        return entry

    def _write(self, text: str) -> None:
        if os.fspath(self._path) != STDOUT:
            write_best_effort(self._path, text, stderr=self._stderr)
            return
        stream = sys.stdout if self._stdout is None else self._stdout
        try:
            stream.write(text)
            stream.flush()
        except (OSError, ValueError) as exc:
            warn(f"could not write the JSON report to stdout: {exc}", self._stderr)
            silence(stream)


def _millis(seconds: float) -> float:
    return round(seconds * 1000, 3)
