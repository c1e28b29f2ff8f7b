"""`lint`: a server's tool definitions checked against the rules agents depend on, as a Python call (the
`toolproof lint` command)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolproof.api.reports import Reports, report_results
from toolproof.api.results import ProbeResult
from toolproof.exit_codes import UsageError

if TYPE_CHECKING:
    import signal

    from toolproof.mcp.spec import ConnectSpec
    from toolproof.model.events import Sink
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
    spec: ConnectSpec | None = None,
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
    A server that cannot be reached sets `unreached` (exit status 2); a stop signal ends the probe and
    what was found is reported, with 128 + N. Raises UsageError for a wrong combination or a bad file."""
    from toolproof.api.probes import server_secrets, source_path
    from toolproof.probe.lint import lint_results, stdout_result
    from toolproof.probe.lint_rules import grade

    if (spec is None) == (tools_file is None):
        raise UsageError("give either --server or --tools-file")
    if spec is None and (call_tools or detect_nondeterminism):
        raise UsageError("--call-tools and --detect-nondeterminism need --server")
    skip = frozenset(code.strip().upper() for code in skip_rules if code.strip())
    started = time.perf_counter()
    if spec is None:
        source = Path(str(tools_file))
        tools, found, stray, stopped, spoken = _from_file(source, skip)
    else:
        source = source_path(spec)
        # a skipped rule never calls a tool
        calls = call_tools and "E301" not in skip, detect_nondeterminism and "W107" not in skip
        gathered = _from_server(spec, skip, calls, max_response_kb)
        if not isinstance(gathered, tuple):
            return LintResult((), time.perf_counter() - started, unreached=gathered)
        tools, found, stray, stopped, spoken = gathered
    findings = grade(found, skip=skip, strict=strict)
    results = lint_results(tools, findings, source, threshold=threshold)
    if stray:
        results.append(stdout_result(stray, source))
    results = [result.model_copy(update={"protocol": spoken}) for result in results]
    duration = time.perf_counter() - started
    if reports is not None or sink is not None:
        events = (reports or Reports()).sink(server_secrets(spec), sink)
        report_results(results, events, f"toolproof lint {source}", duration)
    return LintResult(
        tuple(results), duration, stopped_by=stopped, tools=tuple(tools), findings=tuple(findings)
    )


Gathered = tuple[list[dict[str, Any]], list["Finding"], list[str], "signal.Signals | None", str | None]
"""The tools, every finding, the lines the server wrote to stdout that are not MCP, the signal that
stopped the probe (None), and the protocol revision spoken with the server (None without one)."""


def _from_file(path: Path, skip: frozenset[str]) -> Gathered:
    from toolproof.probe.lint_rules import lint_tools
    from toolproof.probe.tools import ToolsFileError, load_tools_file

    try:
        tools = load_tools_file(path)
    except ToolsFileError as error:
        raise UsageError(str(error)) from None
    return tools, lint_tools(tools, skip), [], None, None


def _from_server(
    spec: ConnectSpec, skip: frozenset[str], calls: tuple[bool, bool], max_response_kb: int
) -> Gathered | Unreached:
    """What lint found (so far, when a signal stopped it), or why the server was not reached."""
    from toolproof.api.probes import run_guarded, unreached
    from toolproof.mcp.errors import RequestFailed
    from toolproof.run.interrupt import Interrupted

    listed: list[dict[str, Any]] = []
    found: list[Finding] = []
    stray: list[str] = []
    spoken: list[str | None] = [None]

    async def probe() -> None:
        """Start the server, and load the rules while it boots; fill `listed`, `found` and `stray` as they
        come, so a stop by signal keeps them."""
        import threading

        import anyio.to_thread

        from toolproof.probe.connection import Prober

        loading = threading.Thread(target=_load_rules, name="toolproof-lint-rules", daemon=True)
        loading.start()
        async with Prober(spec) as prober:
            try:
                listed.extend(await prober.list_tools())
                spoken[0] = (await prober.session()).protocol_version
                await anyio.to_thread.run_sync(loading.join)
                from toolproof.probe.lint import CallRules, call_findings
                from toolproof.probe.lint_rules import lint_tools

                rules = CallRules(calls[0], max_response_kb, calls[1])
                found.extend(lint_tools(listed, skip))
                await call_findings(prober, listed, rules, found)
            finally:
                stray.extend(prober.stray_stdout)

    try:
        outcome = run_guarded(probe)
    except RequestFailed as error:
        return unreached(spec, error)
    return listed, found, stray, outcome.signal if isinstance(outcome, Interrupted) else None, spoken[0]


def _load_rules() -> None:
    """Import the rules and the results they become (run in a worker thread while the server starts)."""
    import toolproof.probe.lint
    import toolproof.probe.lint_rules  # noqa: F401
