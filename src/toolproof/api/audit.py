"""`audit`: every tool of a server called once with valid arguments and how it answered classified, as a
Python call (the `toolproof audit` command)."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.api.reports import Reports, RunStream
from toolproof.api.results import ProbeResult
from toolproof.exit_codes import UsageError

if TYPE_CHECKING:
    from toolproof.mcp.spec import ConnectSpec
    from toolproof.model.events import Sink
    from toolproof.model.result import CaseResult
    from toolproof.probe.audit import ToolAudit
    from toolproof.probe.scan.run import Unreached


@dataclass(frozen=True)
class AuditResult(ProbeResult):
    """The verdicts of `audit`, with each tool's audit in tool order and the case files written."""

    audits: tuple[ToolAudit, ...] = ()
    written: tuple[Path, ...] = ()

    @property
    def score(self) -> tuple[int, int]:
        """(healthy, tested) tools."""
        from toolproof.probe.audit import score

        return score(list(self.audits))


def audit(
    spec: ConnectSpec | Sequence[ConnectSpec],
    *,
    include_writes: bool = False,
    jobs: int = 4,
    output: str | Path | None = None,
    reports: Reports | None = None,
    sink: Sink | None = None,
) -> AuditResult:
    """Call each tool of the server `spec` names (see `server_spec`) once with arguments generated from its
    input schema and classify the answer (healthy, crash, timeout, rejects-valid-input, skipped: annotated
    destructive, unless `include_writes`), up to `jobs` calls in flight at once; each tool is reported as
    soon as it and every tool before it are done. Several specs: the servers are audited side by side, each
    as if alone, and reported one after another in the order given (the server whose tool was slowest when
    last audited, a second or more, starts first, the others once it has listed its tools). `output`: write
    a passing case per healthy tool into that directory (one server only). A server that cannot be reached
    sets `unreached` (exit status 2); a stop signal ends the audit and the tools audited so far are
    reported, with 128 + N."""
    from toolproof.api.probes import run_guarded, server_secrets, source_path, unreached
    from toolproof.mcp.errors import RequestFailed
    from toolproof.probe.side_by_side import ServerOrder, each_server
    from toolproof.run.interrupt import Interrupted

    specs = list(spec) if isinstance(spec, Sequence) else [spec]
    if not specs:
        raise UsageError("audit: no server given")
    if output is not None and len(specs) > 1:
        raise UsageError("--output writes the cases of one server: give one --server")
    secrets = set().union(*(server_secrets(each) for each in specs))
    reports = reports or Reports()
    events = reports.sink(secrets, sink)
    last = _last_durations(reports, [str(source_path(each)) for each in specs])
    stream = RunStream(events, f"toolproof audit {', '.join(str(source_path(each)) for each in specs)}")
    started = time.perf_counter()
    audits: list[list[ToolAudit]] = [[] for _ in specs]  # filled as each tool is audited (kept on a stop)
    lost: dict[int, Unreached] = {}
    order: ServerOrder[CaseResult] = ServerOrder(len(specs), stream.add)
    listed: list[int] = []

    def start(started: Callable[[], None], tools: int) -> None:
        """The run starts when the first server lists its tools (the total grows as the others report)."""
        if not listed:
            stream.start(tools)
        listed.append(tools)
        started()

    async def one(index: int, started: Callable[[], None]) -> None:
        add = functools.partial(order.add, index)
        begin = functools.partial(start, started)
        try:
            await _audit(specs[index], include_writes, jobs, begin, add, audits[index], last[index])
        except RequestFailed as error:
            lost[index] = unreached(specs[index], error)
        finally:
            order.finish(index)

    outcome = run_guarded(lambda: each_server(len(specs), one, _slowest(last)))
    duration = time.perf_counter() - started
    missing = [lost[index] for index in sorted(lost)]
    if len(missing) == len(specs):
        return AuditResult((), duration, unreached=missing[0], also_unreached=tuple(missing[1:]))
    stream.end(duration)
    every = [audit for server in audits for audit in server]
    written = _write_cases(Path(output), every, specs[0]) if output is not None else []
    return AuditResult(
        tuple(stream.results),
        duration,
        stopped_by=outcome.signal if isinstance(outcome, Interrupted) else None,
        unreached=missing[0] if missing else None,
        also_unreached=tuple(missing[1:]),
        audits=tuple(every),
        written=tuple(written),
    )


async def _audit(
    spec: ConnectSpec,
    include_writes: bool,
    jobs: int,
    start: Callable[[int], None],
    add: Callable[[CaseResult], None],
    audits: list[ToolAudit],
    last: dict[str, float],
) -> None:
    """Audit the tools, up to `jobs` calls at once (the slow ones of `last` first), into `audits`:
    `start(tools)` once they are listed, then `add` each tool's result in tool order as soon as it and
    every tool before it are done; `RequestFailed` when tools/list fails.

    Stray stdout lines go on the first tool reported after they appeared: those of the start and
    tools/list on the first tool; with calls in flight together the tool that caused a line cannot be
    told, so a line may land on a tool reported after the one during whose call it was written."""
    from toolproof.api.probes import preload, source_path
    from toolproof.probe.connection import Prober

    loaded = preload("audit")  # while the server starts
    source = source_path(spec)
    async with Prober(spec) as prober:
        tools = await prober.list_tools()
        await loaded()
        from toolproof.mcp.stdio import stray_warning  # the MCP SDK's: loaded by the session by now
        from toolproof.probe.audit import audit_result, audit_tools
        from toolproof.report.ordering import InOrder

        order: InOrder[ToolAudit] = InOrder()
        start(len(tools))
        seen = 0  # how many of the prober's stray stdout lines are already on a result

        def done(index: int, audit: ToolAudit) -> None:
            nonlocal seen
            for ready in order.add(index, audit):
                audits.append(ready)
                result = audit_result(ready, source)
                stray = stray_warning(prober.stray_stdout[seen:])
                seen = len(prober.stray_stdout)
                if stray:
                    result = result.model_copy(update={"warnings": (*result.warnings, stray)})
                add(result)

        await audit_tools(prober, tools, include_writes=include_writes, jobs=jobs, done=done, last=last)


def _slowest(last: list[dict[str, float]]) -> int | None:
    """The server with the slowest tool when last audited, if that took `SLOW_S` or more (None: none)."""
    from toolproof.probe.audit import SLOW_S

    longest = [max(seconds.values(), default=0.0) for seconds in last]
    if len(last) < 2 or max(longest) < SLOW_S:
        return None
    return longest.index(max(longest))


def _last_durations(reports: Reports, sources: list[str]) -> list[dict[str, float]]:
    """Each server's tools' seconds when last audited (recorded under `reports.state_dir`), by tool."""
    if reports.state_dir is None:
        return [{} for _ in sources]
    from toolproof.report.timings import last_durations

    recorded = last_durations(Path(reports.state_dir))
    return [
        {
            node.removeprefix(f"{source}::"): took
            for node, took in recorded.items()
            if node.startswith(f"{source}::")
        }
        for source in sources
    ]


def _write_cases(directory: Path, audits: list[ToolAudit], spec: ConnectSpec) -> list[Path]:
    from toolproof.probe.audit import healthy_case
    from toolproof.probe.cases import write_cases
    from toolproof.probe.verdicts import CallClass

    cases = {audit.tool: healthy_case(audit, spec) for audit in audits if audit.verdict is CallClass.HEALTHY}
    return write_cases(directory, cases)
