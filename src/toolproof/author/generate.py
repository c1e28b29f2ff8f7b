"""Generate a suite from a live server: list it, draft a case per item (`drafts`), make each request on the
server, draw the expectations from its answers (`expectations`) and write the files (`case_file`).

Each request is made twice, each time on a fresh server with its own copy of the fixture, exactly as the
written case will run; what stays the same is asserted. A case whose request failed outright is written
with `skip: true` and the reason, so that the suite passes as generated and says what is left to do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from toolproof.author.case_file import render, write_schema
from toolproof.author.drafts import Draft, drafts
from toolproof.author.expectations import expectations
from toolproof.author.listing import Listing, list_server, server_label
from toolproof.model.observation import Observation
from toolproof.model.result import CaseResult, Failure
from toolproof.model.server_case import AssertBlock, Expect
from toolproof.model.server_config import ServerConfig
from toolproof.report.sinks import Broadcast
from toolproof.run.scheduler import Slot, run_all
from toolproof.run.secrets import run_secrets
from toolproof.run.server_case import execute_case
from toolproof.sources.options import ServerOptions

CALLS = 2


@dataclass
class Generated:
    """What `generate` did: files written, files left alone (they existed), and the listing it worked from."""

    listing: Listing
    written: list[Path] = field(default_factory=list)
    kept: list[Path] = field(default_factory=list)
    skipped: list[Draft] = field(default_factory=list)


async def observe(drafts: Sequence[Draft], options: ServerOptions, jobs: int) -> list[Draft]:
    """Each draft that is not skipped, made CALLS times, with expectations from the answers; a draft whose
    request failed comes back skipped, with the reason. The requests are made in rounds (all of them, then all
    again), so that on a server whose state they share a value that another request changed is left out."""
    runnable = [draft for draft in drafts if not draft.skipped]
    secrets = run_secrets([draft.case.server for draft in runnable], options.environ)
    seen: dict[int, list[Observation]] = {index: [] for index in range(len(runnable))}

    async def execute(index: int, slot: Slot) -> CaseResult:
        return await execute_case(
            runnable[index].case, options, on_waiting=slot.release, on_observed=seen[index].append
        )

    failed: dict[int, Failure] = {}
    for _ in range(CALLS):  # every request once, then all again: a change one request makes shows in the next
        results = await run_all(
            range(len(runnable)),
            execute,
            lambda index: runnable[index].case.name,
            jobs=jobs,
            sink=Broadcast([]),
            title="toolproof generate",
        )
        failed.update((index, result.failure) for index, result in enumerate(results) if result.failure)
    done: dict[int, Draft] = {}
    for index, draft in enumerate(runnable):
        if len(seen[index]) < CALLS:
            failure = failed.get(index)
            reason = failure.message if failure else "the request did not complete"
            why = f"the request failed with the generated arguments: {reason}; edit them and remove skip"
            done[index] = replace(draft, skipped=why)
            continue
        block = draft.case.block
        expect = expectations(seen[index], tool=isinstance(block, AssertBlock), secrets=secrets)
        checks = Expect.model_validate(expect)
        case = draft.case.model_copy(update={"block": block.model_copy(update={"expect": checks})})
        note = "the server answered with an error for these arguments" if expect.get("is_error") else ""
        done[index] = replace(draft, case=case, note=note)
    by_draft = {id(draft): done[index] for index, draft in enumerate(runnable)}
    return [by_draft.get(id(draft), draft) for draft in drafts]


async def generate(
    server: ServerConfig,
    output: Path,
    options: ServerOptions,
    *,
    include_writes: bool,
    overwrite: bool,
    jobs: int,
) -> Generated:
    """List the server, draft and observe a case per item, and write each file (existing ones only with
    `overwrite`). Raises RequestFailed when the server cannot be listed, OSError when a file cannot be
    written."""
    listing = await list_server(server, options)
    planned = drafts(listing, server, output, options, include_writes)
    fresh = [draft for draft in planned if overwrite or not (output / draft.file).exists()]
    done = Generated(listing, kept=[output / draft.file for draft in planned if draft not in fresh])
    label = server_label(server, ServerOptions(environ={}))
    when = datetime.now(UTC)
    output.mkdir(parents=True, exist_ok=True)
    write_schema(output)
    for draft in await observe(fresh, options, jobs):
        path = output / draft.file
        path.write_text(render(draft, label, when), encoding="utf-8")
        done.written.append(path)
        if draft.skipped:
            done.skipped.append(draft)
    return done
