"""Golden answers: record each case's answer, or compare it with the one recorded, masking volatile values.

Each case gives one verdict: PASS (the answer matches, or was recorded), FAIL (it differs, with the changed
fields; or nothing was recorded for it) or ERROR (the case could not run, so there is nothing to compare).
Each server also gets a `tools/list` verdict: tools added, removed, or whose description, annotations or
schema changed are a difference (they are what an agent reads).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolproof.author.diff import (
    ABSENT,
    Difference,
    as_tree,
    child,
    render,
    text_differences,
    tree_differences,
)
from toolproof.author.listing import list_server, server_label
from toolproof.author.masks import MaskError, check_pattern, mask
from toolproof.author.snapshot_file import SnapshotEntry, SnapshotFile, ToolList, checksum, entry
from toolproof.load.errors import LoadError
from toolproof.mcp.errors import RequestFailed
from toolproof.mcp.process import reap_strays
from toolproof.model.events import Sink
from toolproof.model.observation import Observation
from toolproof.model.result import CaseResult, Failure, FailureKind, Status
from toolproof.model.server_case import AssertBlock, Case, SamplingBlock, TrajectoryBlock
from toolproof.model.server_config import ServerConfig
from toolproof.run.load_errors import Broken, by_document, load_error_result
from toolproof.run.scheduler import Slot, run_all
from toolproof.run.server_case import execute_case
from toolproof.sources.options import ServerOptions

COMPARED_KEYS = ("description", "annotations", "inputSchema", "outputSchema")
"""What of a listed tool a snapshot compares: what an agent reads."""
UPDATE_HINT = "run `toolproof snapshot --update` to record it"


@dataclass(frozen=True)
class ToolsCheck:
    """The `tools/list` of one server, compared with (or recorded as) the suite's snapshot of it."""

    server: ServerConfig
    label: str
    file: Path


@dataclass
class SnapshotRun:
    """Every verdict, and the snapshot file as it stands after the run (to be written with --update)."""

    results: list[CaseResult] = field(default_factory=list)
    snapshots: SnapshotFile = field(default_factory=SnapshotFile)
    new: int = 0
    changed: int = 0


def recorded_tool(case: Case) -> str:
    """What the entry's `tool` names: the called tool, or the kind of request."""
    block = case.block
    return block.tool if isinstance(block, AssertBlock | SamplingBlock) else block.kind


def mask_problem(case: Case) -> Failure | None:
    for pattern in case.snapshot_masks:
        problem = check_pattern(pattern)
        if problem:
            return Failure(kind=FailureKind.CONFIG, check="snapshot_masks", message=problem)
    return None


def answer_differences(saved: SnapshotEntry, live: SnapshotEntry, masks: Sequence[str]) -> list[Difference]:
    """How the live answer differs from the saved one once volatile values are masked on both sides.

    JSON answers are compared field by field, a field counting as changed only when it still differs with the
    masks applied to it as `"key": value`; other answers (and JSON whose masked text is the only place the
    change shows) line by line, masked.
    """
    found = [] if saved.is_error == live.is_error else [Difference("is_error", saved.is_error, live.is_error)]
    if checksum(saved.text) == live.checksum:
        return found
    before, after = mask(saved.text, masks), mask(live.text, masks)
    if before == after:
        return found
    old, new = as_tree(saved.text), as_tree(live.text)
    fields = (
        []
        if old is None or new is None
        else [
            item
            for item in tree_differences(old, new)
            if _masked_member(item, item.before, masks) != _masked_member(item, item.after, masks)
        ]
    )
    return [*found, *(fields or text_differences(before, after))]


def _masked_member(item: Difference, value: Any, masks: Sequence[str]) -> str:
    """The value as an object member (`"key": value`, so a mask written for that key applies), masked."""
    if value is ABSENT:
        return "\0absent"
    key = item.field.rsplit(".", 1)[-1] if not item.field.endswith("]") else ""
    rendered = json.dumps(value, ensure_ascii=False)
    return mask(f'"{key}": {rendered}' if key else rendered, masks)


def tool_differences(saved: list[dict[str, Any]], live: list[dict[str, Any]]) -> list[Difference]:
    """Tools added or removed, and every changed field of a tool's description, annotations or schemas."""
    before = {str(tool.get("name")): tool for tool in saved}
    after = {str(tool.get("name")): tool for tool in live}
    found: list[Difference] = []
    for name, tool in before.items():
        if name not in after:
            found.append(Difference(f"tool {name}", tool, ABSENT, "removed (no longer listed)"))
            continue
        for key in COMPARED_KEYS:
            here = child(child("$", name), key)
            found.extend(tree_differences(tool.get(key), after[name].get(key), here))
    added = [name for name in after if name not in before]
    found.extend(Difference(f"tool {name}", ABSENT, after[name], "added") for name in added)
    return found


def _differs(differences: list[Difference], what: str) -> Failure:
    message = f"{what} changed:\n{render(differences)}"
    details = {"fields": [item.field for item in differences]}
    return Failure(kind=FailureKind.EXPECTATION, check="snapshot", message=message, details=details)


class _Snapshotter:
    """The run's state: what was recorded, what is being recorded, and the verdicts."""

    def __init__(
        self, saved: SnapshotFile, options: ServerOptions, update: bool, keep_recorded: bool
    ) -> None:
        self.saved = saved.by_name()
        self.saved_file = saved
        self.options = options
        self.update = update
        self.keep_recorded = keep_recorded
        self.entries: dict[str, SnapshotEntry] = {}
        self.tool_lists: dict[str, list[dict[str, Any]]] = {}
        self.new = self.changed = 0

    async def case(self, case: Case, slot: Slot) -> CaseResult:
        started = time.perf_counter()
        problem = mask_problem(case)
        if problem is not None:
            return _result(case, Status.ERROR, problem, started)
        seen: list[Observation] = []
        ran = await execute_case(case, self.options, on_waiting=slot.release, on_observed=seen.append)
        saved = self.saved.get(case.name)
        if ran.status is Status.SKIP:
            if saved is not None:
                self.entries[case.name] = saved
            return ran
        if not seen:
            if saved is not None:
                self.entries[case.name] = saved
            failure = ran.failure or Failure(kind=FailureKind.CONFIG, message="the case did not run")
            message = f"cannot take a snapshot: {failure.message}"
            return ran.model_copy(
                update={"status": Status.ERROR, "failure": failure.model_copy(update={"message": message})}
            )
        observation = seen[0]
        live = entry(case.name, recorded_tool(case), observation.text, observation.is_error)
        if self.update and not (self.keep_recorded and saved is not None):
            self.entries[case.name] = live
            if saved is None:
                self.new += 1
            elif saved.checksum != live.checksum or saved.is_error != live.is_error:
                self.changed += 1
            return _result(case, Status.PASS, None, started)
        if saved is None:
            self.entries.pop(case.name, None)
            failure = Failure(
                kind=FailureKind.EXPECTATION, check="snapshot", message=f"no snapshot recorded; {UPDATE_HINT}"
            )
            return _result(case, Status.FAIL, failure, started)
        self.entries[case.name] = saved
        try:
            differences = answer_differences(saved, live, case.snapshot_masks)
        except MaskError as error:
            failure = Failure(kind=FailureKind.CONFIG, check="snapshot_masks", message=str(error))
            return _result(case, Status.ERROR, failure, started)
        if not differences:
            return _result(case, Status.PASS, None, started)
        failure = _differs(differences, "the answer")
        return _result(
            case,
            Status.FAIL,
            failure.model_copy(update={"expected": saved.text, "actual": live.text}),
            started,
        )

    async def tools(self, check: ToolsCheck) -> CaseResult:
        started = time.perf_counter()
        name = f"tools/list of {check.label}"

        def verdict(status: Status, failure: Failure | None = None) -> CaseResult:
            return CaseResult(
                name=name,
                file=check.file,
                status=status,
                failure=failure,
                duration_s=time.perf_counter() - started,
            )

        saved = self.saved_file.tools_of(check.label)
        try:
            listing = await list_server(check.server, self.options, everything=False)
        except RequestFailed as error:
            if saved is not None:
                self.tool_lists[check.label] = saved
            message = f"cannot list the tools: {error.failure.message}"
            return verdict(Status.ERROR, error.failure.model_copy(update={"message": message}))
        if self.update and not (self.keep_recorded and saved is not None):
            self.tool_lists[check.label] = listing.tools
            return verdict(Status.PASS)
        if saved is None and self.saved_file.snapshots is not None and self.saved_file.tool_lists is None:
            reason = "the snapshot file records no tools/list (mcp-assert writes none); --update adds it"
            return verdict(Status.SKIP).model_copy(update={"reason": reason})
        if saved is None:
            return verdict(
                Status.FAIL,
                Failure(
                    kind=FailureKind.EXPECTATION,
                    check="snapshot",
                    message=f"no tools/list recorded; {UPDATE_HINT}",
                ),
            )
        self.tool_lists[check.label] = saved
        differences = tool_differences(saved, listing.tools)
        if not differences:
            return verdict(Status.PASS)
        return verdict(Status.FAIL, _differs(differences, "tools/list"))

    def file(self, order: Sequence[Case]) -> SnapshotFile:
        snapshots = [self.entries[case.name] for case in order if case.name in self.entries]
        lists = [ToolList(server=label, tools=tools) for label, tools in self.tool_lists.items()]
        return SnapshotFile(snapshots=snapshots, tool_lists=lists or None)


def _result(case: Case, status: Status, failure: Failure | None, started: float) -> CaseResult:
    return CaseResult(
        name=case.name,
        file=case.source.file,
        line=case.source.line,
        status=status,
        failure=failure,
        duration_s=time.perf_counter() - started,
    )


def tools_checks(cases: Sequence[Case], options: ServerOptions, file: Path) -> list[ToolsCheck]:
    """One check per distinct server the runnable cases talk to, in the order they first appear."""
    checks: dict[str, ToolsCheck] = {}
    for case in cases:
        if isinstance(case.block, TrajectoryBlock) or case.skip:
            continue
        label = server_label(case.server, options)
        checks.setdefault(label, ToolsCheck(case.server, label, file))
    return list(checks.values())


async def run_snapshots(
    items: Sequence[Case | LoadError],
    saved: SnapshotFile,
    snapshot_file: Path,
    options: ServerOptions,
    *,
    update: bool,
    jobs: int,
    sink: Sink,
    keep_recorded: bool = False,
) -> SnapshotRun:
    """Take (with `update`) or compare the snapshot of every case and of each server's tools/list; with
    `keep_recorded` too, `update` takes only the snapshots not recorded yet and compares the others.

    Trajectory cases (no server) are left out; load errors are ERROR results in their place.
    """
    cases = [item for item in items if isinstance(item, Case) and not isinstance(item.block, TrajectoryBlock)]
    kept: list[Case | LoadError] = [item for item in items if not isinstance(item, Case) or item in cases]
    snapshotter = _Snapshotter(saved, options, update, keep_recorded)
    checks = tools_checks(cases, options, snapshot_file)
    work: list[Case | Broken | ToolsCheck] = [*by_document(kept), *checks]

    async def execute(item: Case | Broken | ToolsCheck, slot: Slot) -> CaseResult:
        if isinstance(item, Case):
            return await snapshotter.case(item, slot)
        if isinstance(item, ToolsCheck):
            return await snapshotter.tools(item)
        return load_error_result(*item)

    def name_of(item: Case | Broken | ToolsCheck) -> str:
        if isinstance(item, Case):
            return item.name
        if isinstance(item, ToolsCheck):
            return f"tools/list of {item.label}"
        return item[0].case_name

    try:
        results = await run_all(work, execute, name_of, jobs=jobs, sink=sink, title="toolproof snapshot")
    finally:
        reap_strays()
    return SnapshotRun(results, snapshotter.file(cases), snapshotter.new, snapshotter.changed)
