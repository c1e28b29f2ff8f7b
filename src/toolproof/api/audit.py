"""`audit`: every tool of a server called once with valid arguments and how it answered classified, as a
Python call (the `toolproof audit` command)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.api.reports import Reports, RunStream
from toolproof.api.results import ProbeResult

if TYPE_CHECKING:
    from toolproof.mcp.spec import ConnectSpec
    from toolproof.model.events import Sink
    from toolproof.probe.audit import ToolAudit


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
    spec: ConnectSpec,
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
    soon as it and every tool before it are done. `output`: write a passing case per healthy tool into that
    directory. A server that cannot be reached sets `unreached` (exit status 2); a stop signal ends the
    audit and the tools audited so far are reported, with 128 + N."""
    from toolproof.api.probes import run_guarded, server_secrets, source_path, unreached
    from toolproof.mcp.errors import RequestFailed
    from toolproof.run.interrupt import Interrupted

    events = (reports or Reports()).sink(server_secrets(spec), sink)
    stream = RunStream(events, f"toolproof audit {source_path(spec)}")
    started = time.perf_counter()
    audits: list[ToolAudit] = []  # filled as each tool is audited: a stop by signal keeps what finished
    try:
        outcome = run_guarded(lambda: _audit(spec, include_writes, jobs, stream, audits))
    except RequestFailed as error:
        return AuditResult((), time.perf_counter() - started, unreached=unreached(spec, error))
    duration = time.perf_counter() - started
    stream.end(duration)
    written = _write_cases(Path(output), audits, spec) if output is not None else []
    return AuditResult(
        tuple(stream.results),
        duration,
        stopped_by=outcome.signal if isinstance(outcome, Interrupted) else None,
        audits=tuple(audits),
        written=tuple(written),
    )


async def _audit(
    spec: ConnectSpec, include_writes: bool, jobs: int, stream: RunStream, audits: list[ToolAudit]
) -> None:
    """Audit the tools, up to `jobs` calls at once, into `audits`, reporting each in tool order as soon as
    it and every tool before it are done; `RequestFailed` when tools/list fails.

    Stray stdout lines go on the first tool reported after they appeared: those of the start and
    tools/list on the first tool; with calls in flight together the tool that caused a line cannot be
    told, so a line may land on a tool reported after the one during whose call it was written."""
    from toolproof.api.probes import source_path
    from toolproof.mcp.stdio import stray_warning
    from toolproof.probe.audit import audit_result, audit_tools
    from toolproof.probe.connection import Prober
    from toolproof.report.ordering import InOrder

    source = source_path(spec)
    order: InOrder[ToolAudit] = InOrder()
    async with Prober(spec) as prober:
        tools = await prober.list_tools()
        stream.start(len(tools))
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
                stream.add(result)

        await audit_tools(prober, tools, include_writes=include_writes, jobs=jobs, done=done)


def _write_cases(directory: Path, audits: list[ToolAudit], spec: ConnectSpec) -> list[Path]:
    from toolproof.probe.audit import healthy_case
    from toolproof.probe.cases import write_cases
    from toolproof.probe.verdicts import CallClass

    cases = {audit.tool: healthy_case(audit, spec) for audit in audits if audit.verdict is CallClass.HEALTHY}
    return write_cases(directory, cases)
