"""A saved JSON report (`--json FILE`, `docs/json-report.md`) read back into the verdicts it holds, so that
`toolproof report` can merge several into one run and hand it to every other report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolproof.model.result import CaseResult, Failure, FailureKind, Status, Step, TrialStats
from toolproof.report.html import ReportFormatError, check_document


def read_report(path: Path) -> dict[str, Any]:
    """The document of the report at `path`; raises ReportFormatError naming the file when it cannot be
    read, is no JSON or is no toolproof report of a version this toolproof reads."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ReportFormatError(f"{path}: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise ReportFormatError(f"{path}: not UTF-8 text: {error}") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ReportFormatError(f"{path}: not JSON: {error}") from None
    return check_document(document, str(path))


def results_of(document: dict[str, Any], source: str) -> list[CaseResult]:
    """The results a checked report document holds; ReportFormatError naming `source` and the result for an
    entry that is not one."""
    found: list[CaseResult] = []
    for index, entry in enumerate(document["results"]):
        try:
            found.append(_result(entry))
        except (KeyError, TypeError, ValueError) as error:
            raise ReportFormatError(f"{source}: results[{index}]: not a result ({error})") from None
    return found


def _result(entry: dict[str, Any]) -> CaseResult:
    failure = entry.get("failure")
    trials = entry.get("trials")
    return CaseResult(
        name=entry["name"],
        file=Path(entry["file"]),
        line=entry["line"],
        status=Status(entry["status"]),
        failure=None if failure is None else _failure(failure),
        reason=entry.get("reason"),
        duration_s=entry.get("duration_ms", 0) / 1000,
        trial=entry.get("trial", 1),
        stderr=entry.get("stderr", ""),
        phases={name: millis / 1000 for name, millis in entry.get("phases_ms", {}).items()},
        trials=None if trials is None else _trials(trials),
        shared_server=entry.get("shared_server"),
        steps=tuple(Step(**step) for step in entry.get("steps", [])),
        protocol=entry.get("protocol"),
        warnings=tuple(entry.get("warnings", ())),
        details=dict(entry.get("details") or {}),
    )


def _failure(entry: dict[str, Any]) -> Failure:
    return Failure(
        kind=FailureKind(entry["kind"]),
        message=entry["message"],
        check=entry.get("check"),
        expected=entry.get("expected"),
        actual=entry.get("actual"),
        details=entry.get("details") or {},
    )


def _trials(entry: dict[str, Any]) -> TrialStats:
    return TrialStats(
        n=entry["n"],
        passed=entry["passed"],
        k=entry["k"],
        pass_at_k=entry["pass_at_k"],
        pass_hat_k=entry["pass_hat_k"],
        threshold=entry.get("threshold", 1.0),
        statuses=tuple(Status(status) for status in entry.get("statuses", [])),
    )
