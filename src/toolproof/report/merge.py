"""Merge the JSON reports of a run's shards (`--shard K/N`) into the verdicts of one run.

Every shard of one split must be there exactly once; a missing or repeated shard, or reports of different
splits, is a `ReportFormatError` naming it. The results come back in the order one unsharded run gives them:
each shard records the ids of the whole selection in run order. Reports without a shard are joined in the
order given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolproof.model.result import CaseResult
from toolproof.report.html import ReportFormatError
from toolproof.report.json_read import read_report, results_of


@dataclass(frozen=True)
class Merged:
    """The merged run: its results in run order, its title, and the longest shard's duration."""

    results: list[CaseResult]
    title: str
    duration_s: float


def merge_reports(paths: Sequence[Path]) -> Merged:
    """The run the reports at `paths` together make; raises ReportFormatError."""
    if not paths:
        raise ReportFormatError("no report to merge")
    documents = [(str(path), read_report(path)) for path in paths]
    sharded = [source for source, document in documents if "shard" in document]
    if sharded and len(sharded) < len(documents):
        plain = next(source for source, document in documents if "shard" not in document)
        raise ReportFormatError(
            f"{plain}: not a shard's report, unlike {sharded[0]}; merge one split at a time"
        )
    results = [
        (place, result)
        for source, document in documents
        for place, result in zip(_positions(document, source), results_of(document, source), strict=True)
    ]
    if sharded:
        _check_split(documents)
        results.sort(key=lambda pair: pair[0])
    durations = [document["summary"].get("duration_s") or 0.0 for _, document in documents]
    title = documents[0][1].get("title") or "toolproof"
    return Merged([result for _, result in results], str(title), max(durations))


def _check_split(documents: Sequence[tuple[str, dict[str, Any]]]) -> None:
    """Each shard K/N of one split exactly once."""
    first_source, first = documents[0]
    total = _shard(first, first_source)[1]
    seen: dict[int, str] = {}
    for source, document in documents:
        index, count = _shard(document, source)
        if count != total:
            raise ReportFormatError(f"{source}: shard {index}/{count}, but {first_source} is one of {total}")
        if document["shard"].get("order") != first["shard"].get("order"):
            raise ReportFormatError(f"{source}: a shard of another selection of cases than {first_source}")
        if index in seen:
            raise ReportFormatError(f"shard {index}/{total} given twice: {seen[index]} and {source}")
        seen[index] = source
    missing = [f"{index}/{total}" for index in range(1, total + 1) if index not in seen]
    if missing:
        raise ReportFormatError(f"shard {', '.join(missing)} missing (given: {len(seen)} of {total})")


def _shard(document: dict[str, Any], source: str) -> tuple[int, int]:
    shard = document["shard"]
    index = shard.get("index") if isinstance(shard, dict) else None
    total = shard.get("total") if isinstance(shard, dict) else None
    if not isinstance(index, int) or not isinstance(total, int) or not 1 <= index <= total:
        raise ReportFormatError(f"{source}: `shard` must be {{index: K, total: N}} with 1 <= K <= N")
    if not isinstance(shard.get("order"), list):
        raise ReportFormatError(f"{source}: `shard.order` must be a list of case ids")
    return index, total


def _positions(document: dict[str, Any], source: str) -> list[int]:
    """Where each result stands in the whole run (see `position`); 0 without a shard."""
    if "shard" not in document:
        return [0] * len(document["results"])
    _shard(document, source)
    where = places(document["shard"]["order"])
    return [position(f"{entry.get('file')}::{entry.get('name')}", where) for entry in document["results"]]


def places(order: Sequence[str]) -> dict[str, int]:
    """Each case id of a run's `order` with its first position."""
    return {case: index for index, case in reversed(list(enumerate(order)))}


def position(result_id: str, where: dict[str, int]) -> int:
    """The position of the case a result stands for: the longest case id that `result_id` is or starts with
    (followed by a blank), so that a result of one check (`case › check`) or of one run (`case [run]`)
    stands with its case; after every case when there is none."""
    candidate = result_id
    while candidate not in where:
        cut = candidate.rfind(" ")
        if cut < 0:
            return len(where)
        candidate = candidate[:cut]
    return where[candidate]
