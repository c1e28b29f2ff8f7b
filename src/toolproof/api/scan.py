"""`scan`: the security scan of one or more servers as a Python call (the `toolproof scan` command)."""

from __future__ import annotations

import os
import shlex
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from toolproof.api.reports import Reports, report_results
from toolproof.exit_codes import UsageError

if TYPE_CHECKING:
    from toolproof.mcp.spec import ConnectSpec
    from toolproof.probe.scan.findings import ScanFinding
    from toolproof.probe.scan.listing import Listing
    from toolproof.probe.scan.run import ScanResult
    from toolproof.providers.base import Provider

CASSETTE = "scan-judge.json"
"""The judge's cassette in a --record/--replay directory."""


def scan(
    servers: Sequence[ConnectSpec],
    *,
    pin: str | Path | None = None,
    update: bool = False,
    sarif: str | Path | None = None,
    fail_on: Literal["error", "warning"] = "error",
    call_tools: bool = True,
    reports: Reports | None = None,
    judge: str | None = None,
    judge_provider: Literal["openai", "anthropic", "scripted"] | None = None,
    judge_script: str | Path | None = None,
    record: str | Path | None = None,
    replay: str | Path | None = None,
) -> ScanResult:
    """Scan what `servers` tell the model (descriptions, instructions, prompts, resources, the answers of
    benign calls) for attacks, risky parameters and toxic flows across them; with `pin`, compare each
    server's tools with the lock file (written when missing, or with `update`) and report every change.
    With `judge` (a model name), the model grades each text finding in its context (benign: a warning),
    through `judge_provider` (default: anthropic for a `claude` model, else openai; `scripted` answers from
    `judge_script`), its exchanges recorded to the cassette directory `record` or answered from `replay`
    (then no provider is asked). Writes the SARIF 2.1.0 log to `sarif`. The result's `exit_code` is 2 when
    a server could not be reached, 1 when a finding is at or above `fail_on`, else 0; a stop signal
    (SIGINT, SIGTERM, SIGHUP) ends the gathering, and what was found so far is reported, with 128 + N.
    Raises UsageError for a bad pin file or judge."""
    from toolproof._version import __version__
    from toolproof.core.sanitize import mask, secret_values
    from toolproof.core.writing import write_best_effort
    from toolproof.mcp.process import become_subreaper, reap_strays
    from toolproof.probe.lint_rules.findings import Severity
    from toolproof.probe.scan import RULES
    from toolproof.probe.scan.run import (
        ScanResult,
        Unreached,
        findings_with_pins,
        gather_servers,
        scan_results,
    )
    from toolproof.probe.scan.sarif import sarif_log
    from toolproof.run.interrupt import Interrupted, run_until_signal

    started = time.perf_counter()
    pin_path = Path(pin) if pin is not None else None
    if pin_path is not None:
        from toolproof.probe.scan.run import load_pins

        load_pins(pin_path)  # a bad pin file stops the scan before any server starts
    listings: list[Listing] = []
    unreached: list[Unreached] = []
    provider = _judge(judge, judge_provider, judge_script, record, replay) if judge else None
    become_subreaper()
    try:
        outcome = run_until_signal(lambda: gather_servers(servers, listings, unreached, call=call_tools))
    finally:
        reap_strays()
    stopped_by = outcome.signal if isinstance(outcome, Interrupted) else None
    findings, written = findings_with_pins(listings, pin_path, update=update and stopped_by is None)
    if provider is not None and judge and stopped_by is None:
        findings = _judged(findings, listings, provider, judge)
    threshold = Severity(fail_on)
    source = Path(" + ".join(spec.url or shlex.join([spec.command, *spec.args]) for spec in servers))
    results = scan_results(findings, listings, unreached, fail_on=threshold, source=source)
    secrets: set[str] = set()
    for spec in servers:
        secrets |= secret_values(os.environ, spec.headers) | {v for v in spec.headers.values() if len(v) >= 4}
    if reports is not None:
        report_results(results, reports.sink(secrets), "toolproof scan", time.perf_counter() - started)
    if sarif is not None:
        import json

        from toolproof.probe.scan.pins import entry_lines

        lock = pin_path.read_text(encoding="utf-8") if pin_path is not None and pin_path.exists() else ""
        artifact = str(pin) if pin is not None else None
        log = sarif_log(findings, RULES, version=__version__, artifact=artifact, lines=entry_lines(lock))
        write_best_effort(sarif, json.dumps(mask(log, secrets), indent=2, ensure_ascii=False) + "\n")
    return ScanResult(
        tuple(findings), tuple(results), tuple(listings), tuple(unreached), threshold, written, stopped_by
    )


def _judge(
    model: str,
    kind: Literal["openai", "anthropic", "scripted"] | None,
    script: str | Path | None,
    record: str | Path | None,
    replay: str | Path | None,
) -> Provider:
    """The judge's provider, wrapped to record or replay its cassette; raises UsageError."""
    from toolproof.load.script_file import ScriptError
    from toolproof.providers.base import ProviderError
    from toolproof.run.providers import ProviderConfig, make_provider
    from toolproof.sources.agent.cassette import Cassette, CassetteError, RecordingProvider, ReplayProvider

    try:
        if replay is not None:
            return ReplayProvider(Cassette.replaying(Path(replay) / CASSETTE))
        chosen = kind or ("anthropic" if model.startswith("claude") else "openai")
        config = ProviderConfig(kind=chosen, model=model, script=Path(script) if script else None)
        live = make_provider(config)
    except (ValueError, ProviderError, ScriptError, CassetteError) as error:
        raise UsageError(f"--judge: {error}") from None
    return (
        RecordingProvider(live, Cassette.recording(Path(record) / CASSETTE)) if record is not None else live
    )


def _judged(
    findings: list[ScanFinding], listings: list[Listing], provider: Provider, model: str
) -> list[ScanFinding]:
    import anyio

    from toolproof.probe.scan.judge import judge_findings
    from toolproof.sources.agent.cassette import CassetteError

    try:
        return anyio.run(judge_findings, findings, listings, provider, model)
    except CassetteError as error:
        raise UsageError(f"--judge: {error}") from None
