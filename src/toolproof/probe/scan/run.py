"""One scan: gather every server, compare with the lock file (and write it when asked), find, and turn the
findings into the verdicts the reports show."""

from __future__ import annotations

import json
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolproof.exit_codes import ExitCode, UsageError
from toolproof.model.result import CaseResult, Failure, FailureKind, Status
from toolproof.probe.lint_rules.findings import Severity
from toolproof.probe.scan import pins, scan_listings
from toolproof.probe.scan.findings import MAX_PER_TEXT, ScanFinding
from toolproof.probe.scan.listing import Listing

if TYPE_CHECKING:
    from toolproof.mcp.spec import ConnectSpec

_RANK = {Severity.WARNING: 1, Severity.ERROR: 2}


@dataclass(frozen=True)
class Unreached:
    """A server that could not be started, reached or listed, and why."""

    server: str
    message: str
    stderr: str = ""


@dataclass(frozen=True)
class ScanResult:
    """What a scan found. `exit_code`: 2 when a server could not be reached, 1 when a finding is at or above
    `fail_on`, else 0 (128 + N when signal `stopped_by` ended the gathering early); `pinned` is the lock
    file written by this scan, if any."""

    findings: tuple[ScanFinding, ...]
    results: tuple[CaseResult, ...]
    listings: tuple[Listing, ...]
    unreached: tuple[Unreached, ...] = ()
    fail_on: Severity = Severity.ERROR
    pinned: Path | None = None
    stopped_by: signal.Signals | None = None

    @property
    def failing(self) -> tuple[ScanFinding, ...]:
        return tuple(finding for finding in self.findings if at_least(finding.severity, self.fail_on))

    @property
    def exit_code(self) -> int:
        if self.stopped_by is not None:
            return ExitCode.stopped_by(self.stopped_by)
        if self.unreached:
            return int(ExitCode.USAGE)
        return int(ExitCode.FAILED if self.failing else ExitCode.OK)


def at_least(severity: Severity, threshold: Severity) -> bool:
    return _RANK[severity] >= _RANK[threshold]


async def gather_servers(
    specs: Sequence[ConnectSpec], listings: list[Listing], unreached: list[Unreached], *, call: bool
) -> None:
    """Each server in turn into `listings` (names made unique by ` #2`, ...) or `unreached`, so what was
    gathered before a stop signal is kept."""
    from toolproof.mcp.errors import RequestFailed
    from toolproof.probe.scan.gather import gather, spec_name

    for spec in specs:
        try:
            listing = await gather(spec, call=call)
        except RequestFailed as error:
            unreached.append(Unreached(spec_name(spec), error.failure.message, error.stderr))
            continue
        taken = {known.server for known in listings}
        name, count = listing.server, 1
        while name in taken:
            count += 1
            name = f"{listing.server} #{count}"
        listings.append(replace(listing, server=name))


def load_pins(path: Path) -> dict[str, Any] | None:
    """The servers a lock file pins (None when it does not exist); raises UsageError naming the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"{path}: cannot read the pin file: {error}") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(f"{path}:{error.lineno}:{error.colno}: not JSON: {error.msg}") from None
    servers = document.get("servers") if isinstance(document, dict) else None
    if not isinstance(servers, dict) or document.get("format") != pins.PIN_FORMAT:
        raise UsageError(f'{path}: not a toolproof scan pin file (expected "format": 1 and "servers")')
    for server, entry in servers.items():
        tools = entry.get("tools") if isinstance(entry, dict) else None
        if not isinstance(tools, dict):
            raise UsageError(f"{path}: servers.{server}: expected an object with tools")
        for name, tool in tools.items():
            if not isinstance(tool, dict) or not isinstance(tool.get("definition"), dict):
                raise UsageError(
                    f"{path}: servers.{server}.tools.{name}: expected an object with a definition"
                )
    return servers


def findings_with_pins(
    listings: Sequence[Listing], pin: Path | None, *, update: bool
) -> tuple[list[ScanFinding], Path | None]:
    """Every finding (against the pin file's servers unless `update`), and the pin file if it was written:
    when new, with `update`, or to add servers it did not hold yet."""
    from toolproof.core.writing import write_atomic

    pinned = load_pins(pin) if pin is not None else None
    findings = collapse(scan_listings(listings, None if update else pinned))
    if pin is None:
        return findings, None
    kept = dict(pinned or {})
    fresh = {listing.server: pins.pin_of(listing) for listing in listings}
    if update or pinned is None or any(name not in kept for name in fresh):
        merged = {**kept, **fresh} if update else {**fresh, **kept}
        write_atomic(pin, pins.lock_document(merged))
        return findings, pin
    return findings, None


def collapse(findings: Sequence[ScanFinding]) -> list[ScanFinding]:
    """One finding per rule and place, the first, saying how many more places in the text it found (`N+`:
    at least; a rule stops at `MAX_PER_TEXT` places in one text)."""
    counts: dict[tuple[str, str, str, str], int] = {}
    first: dict[tuple[str, str, str, str], ScanFinding] = {}
    for finding in findings:
        key = (finding.server, finding.tool, finding.field, finding.rule)
        counts[key] = counts.get(key, 0) + 1
        first.setdefault(key, finding)
    collapsed = []
    for key, finding in first.items():
        count = counts[key]
        more = f"{count - 1}+" if count >= MAX_PER_TEXT else str(count - 1)
        collapsed.append(
            replace(finding, message=f"{finding.message} (and {more} more)") if count > 1 else finding
        )
    return collapsed


def scan_results(
    findings: Sequence[ScanFinding],
    listings: Sequence[Listing],
    unreached: Sequence[Unreached],
    *,
    fail_on: Severity,
    source: Path,
) -> list[CaseResult]:
    """A result per finding (failing at or above `fail_on`, else passing with its warning, as lint's
    warnings do), an error per unreached server, a pass per server without findings."""
    results: list[CaseResult] = []
    for finding in findings:
        name = f"{finding.location} {finding.rule}: {finding.message}"
        if not at_least(finding.severity, fail_on):
            warning = f"{finding.severity.value}: {finding.span}" if finding.span else finding.severity.value
            results.append(CaseResult(name=name, file=source, status=Status.PASS, warnings=(warning,)))
            continue
        failure = Failure(
            kind=FailureKind.EXPECTATION,
            message=f"{finding.severity.value} at {finding.location}"
            + (f": {finding.span}" if finding.span else ""),
            check=finding.rule,
            details=_details(finding),
        )
        results.append(CaseResult(name=name, file=source, status=Status.FAIL, failure=failure))
    for server in unreached:
        failure = Failure(kind=FailureKind.TRANSPORT, message=f"cannot scan the server: {server.message}")
        results.append(
            CaseResult(
                name=server.server, file=source, status=Status.ERROR, failure=failure, stderr=server.stderr
            )
        )
    flagged = {finding.server for finding in findings}
    for listing in listings:
        if listing.server not in flagged:
            name = f"{listing.server}: no findings ({len(listing.tools)} tools)"
            results.append(CaseResult(name=name, file=source, status=Status.PASS))
    return results


def _details(finding: ScanFinding) -> Mapping[str, str]:
    return {
        "server": finding.server,
        "tool": finding.tool,
        "field": finding.field,
        "rule": finding.rule,
        "severity": finding.severity.value,
        "span": finding.span,
    }
