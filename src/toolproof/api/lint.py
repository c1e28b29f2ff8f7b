"""`lint`: a server's tool definitions checked against the rules agents depend on, as a Python call (the
`toolproof lint` command)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolproof.api.reports import Reports, report_results
from toolproof.api.results import ProbeResult
from toolproof.exit_codes import UsageError

if TYPE_CHECKING:
    import signal

    from toolproof.mcp.spec import ConnectSpec
    from toolproof.model.events import Sink
    from toolproof.model.result import CaseResult
    from toolproof.probe.lint_rules import Finding
    from toolproof.probe.scan.run import Unreached


@dataclass(frozen=True)
class LintResult(ProbeResult):
    """The verdicts of `lint`, with the tools linted and every finding (graded: `strict` made warnings
    errors)."""

    tools: tuple[dict[str, Any], ...] = ()
    findings: tuple[Finding, ...] = ()

    @property
    def patches(self) -> dict[str, list[dict[str, Any]]]:
        """The suggested schema edits, an RFC 6902 JSON Patch per tool that has any (`--fix`)."""
        from toolproof.probe.fixes import tool_patches

        return tool_patches(list(self.tools), list(self.findings))


def lint(
    spec: ConnectSpec | Sequence[ConnectSpec] | None = None,
    *,
    tools_file: str | Path | None = None,
    skip_rules: Iterable[str] = (),
    strict: bool = False,
    threshold: int = 0,
    call_tools: bool = False,
    max_response_kb: int = 100,
    detect_nondeterminism: bool = False,
    reports: Reports | None = None,
    sink: Sink | None = None,
) -> LintResult:
    """Lint the tools of the server `spec` names (see `server_spec`), or of the saved tools/list result
    `tools_file`: one result per finding, one passing result per tool without any. Errors fail, warnings
    pass carrying their warning (`strict`: they fail too); more findings than a non-zero `threshold` fail
    them all. `skip_rules`: codes never run. `call_tools`: call each non-destructive tool once (E301, a
    response over `max_response_kb`); `detect_nondeterminism`: three times (W107, outputs that differ).
    Several specs: the servers are linted side by side, each as if alone (`threshold` counts each
    server's findings), and reported one after another in the order given. A server that cannot be
    reached sets `unreached` (exit status 2); a stop signal ends the probe and what was found is reported,
    with 128 + N. Raises UsageError for a wrong combination or a bad file."""
    from toolproof.api.probes import server_secrets, source_path
    from toolproof.probe.lint import lint_results, stdout_result
    from toolproof.probe.lint_rules import grade

    specs = [] if spec is None else list(spec) if isinstance(spec, Sequence) else [spec]
    if bool(specs) == (tools_file is not None):
        raise UsageError("give either --server or --tools-file")
    if not specs and (call_tools or detect_nondeterminism):
        raise UsageError("--call-tools and --detect-nondeterminism need --server")
    skip = frozenset(code.strip().upper() for code in skip_rules if code.strip())
    started = time.perf_counter()
    stopped: signal.Signals | None = None
    if not specs:
        sources = [Path(str(tools_file))]
        gatherings = [_from_file(sources[0], skip)]
    else:
        sources = [source_path(each) for each in specs]
        # a skipped rule never calls a tool
        calls = call_tools and "E301" not in skip, detect_nondeterminism and "W107" not in skip
        gatherings, stopped = _from_servers(specs, skip, calls, max_response_kb)
    results: list[CaseResult] = []
    tools: list[dict[str, Any]] = []
    findings: list[Finding] = []
    lost = [gathering.unreached for gathering in gatherings if gathering.unreached is not None]
    for source, gathering in zip(sources, gatherings, strict=True):
        if gathering.unreached is not None:
            continue
        graded = grade(gathering.found, skip=skip, strict=strict)
        linted = lint_results(gathering.tools, graded, source, threshold=threshold)
        if gathering.stray:
            linted.append(stdout_result(gathering.stray, source))
        results += [result.model_copy(update={"protocol": gathering.spoken}) for result in linted]
        tools += gathering.tools
        findings += graded
    duration = time.perf_counter() - started
    if len(lost) == len(gatherings):
        return LintResult((), duration, unreached=lost[0], also_unreached=tuple(lost[1:]))
    if reports is not None or sink is not None:
        secrets = set().union(*(server_secrets(each) for each in specs)) if specs else server_secrets(None)
        events = (reports or Reports()).sink(secrets, sink)
        report_results(results, events, f"toolproof lint {', '.join(map(str, sources))}", duration)
    return LintResult(
        tuple(results),
        duration,
        stopped_by=stopped,
        unreached=lost[0] if lost else None,
        also_unreached=tuple(lost[1:]),
        tools=tuple(tools),
        findings=tuple(findings),
    )


@dataclass
class _Gathered:
    """What lint gathered of one server (so far, when a signal stopped it): the tools, every finding, the
    lines the server wrote to stdout that are not MCP, the protocol revision spoken with it (None without
    one), or why it was not reached."""

    tools: list[dict[str, Any]] = field(default_factory=list)
    found: list[Finding] = field(default_factory=list)
    stray: list[str] = field(default_factory=list)
    spoken: str | None = None
    unreached: Unreached | None = None


def _from_file(path: Path, skip: frozenset[str]) -> _Gathered:
    from toolproof.probe.lint_rules import lint_tools
    from toolproof.probe.tools import ToolsFileError, load_tools_file

    try:
        tools = load_tools_file(path)
    except ToolsFileError as error:
        raise UsageError(str(error)) from None
    return _Gathered(tools, lint_tools(tools, skip))


def _from_servers(
    specs: Sequence[ConnectSpec], skip: frozenset[str], calls: tuple[bool, bool], max_response_kb: int
) -> tuple[list[_Gathered], signal.Signals | None]:
    """What lint found on each server, side by side, and the signal that stopped it (None)."""
    from toolproof.api.probes import preload, run_guarded, unreached
    from toolproof.mcp.errors import RequestFailed
    from toolproof.probe.side_by_side import each_server
    from toolproof.run.interrupt import Interrupted

    gatherings = [_Gathered() for _ in specs]
    loaded = preload("lint")  # while the servers start

    async def probe(index: int, started: Callable[[], None]) -> None:
        """Start the server; fill its gathering as answers come, so a stop by signal keeps them."""
        from toolproof.probe.connection import Prober

        spec, gathered = specs[index], gatherings[index]
        try:
            async with Prober(spec) as prober:
                try:
                    gathered.tools.extend(await prober.list_tools())
                    gathered.spoken = (await prober.session()).protocol_version
                    await loaded()
                    from toolproof.probe.lint import CallRules, call_findings
                    from toolproof.probe.lint_rules import lint_tools

                    rules = CallRules(calls[0], max_response_kb, calls[1])
                    gathered.found.extend(lint_tools(gathered.tools, skip))
                    await call_findings(prober, gathered.tools, rules, gathered.found)
                finally:
                    gathered.stray.extend(prober.stray_stdout)
        except RequestFailed as error:
            gathered.unreached = unreached(spec, error)

    outcome = run_guarded(lambda: each_server(len(specs), probe))
    return gatherings, outcome.signal if isinstance(outcome, Interrupted) else None
