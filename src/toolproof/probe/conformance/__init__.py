"""`toolproof conformance`: protocol checks for any server, one result per check, each citing the spec."""

from __future__ import annotations

import time
from pathlib import Path

from toolproof.mcp.errors import RequestFailed, TransportFault, classify, expected, leaf
from toolproof.mcp.process import ServerProcess
from toolproof.mcp.spec import HANDSHAKE_ERA, ConnectSpec
from toolproof.mcp.stdio import StdioChannel
from toolproof.model.result import CaseResult, Failure, FailureKind, Status
from toolproof.model.server_config import Transport
from toolproof.probe.conformance.capability_status import missing_capability_status
from toolproof.probe.conformance.checks import SPEC, ProbedServer, RequirementResult, guarded
from toolproof.probe.conformance.eras import cross_era, eras_for
from toolproof.probe.conformance.http_checks import TRANSPORTS, http_checks
from toolproof.probe.conformance.inputs import ProbeInputs
from toolproof.probe.conformance.modern import SITE, SPEC_2026, run_modern_checks
from toolproof.probe.conformance.modern_http import HTTP
from toolproof.probe.conformance.modern_transport import transport_checks
from toolproof.probe.conformance.official import cited, official
from toolproof.probe.conformance.steps import run_checks
from toolproof.probe.conformance.wire import MODERN_ERA, NoAnswer, open_link
from toolproof.probe.workdir import in_scratch

__all__ = ["SPEC", "ProbeFailed", "check_server", "probe_server", "results"]


class ProbeFailed(Exception):
    """The server could not be started, reached or initialized: no check could run. `stderr` is the tail of
    what a stdio server wrote to stderr."""

    def __init__(self, failure: Failure, stderr: str = "") -> None:
        super().__init__(failure.message)
        self.failure = failure
        self.stderr = stderr


async def probe_server(
    spec: ConnectSpec,
    verdicts: list[RequirementResult],
    inputs: ProbeInputs | None = None,
    era: str = HANDSHAKE_ERA,
) -> ProbedServer:
    """Every check of `era` that applies to the server's transport, into `verdicts` as each is made; what the
    probe found (capabilities, listings). ProbeFailed when no check could run."""
    fault: TransportFault | None = None
    server: ServerProcess | None = None
    modern = era != HANDSHAKE_ERA
    try:
        with in_scratch(spec) as placed:
            async with open_link(placed, era) as link:
                if isinstance(link.channel, StdioChannel):
                    server = link.channel.server
                try:
                    probed = await (run_modern_checks if modern else run_checks)(link, verdicts, inputs)
                finally:
                    fault = link.channel.fault
        if spec.transport is Transport.HTTP:  # a group that breaks is one failed result; the rest still run
            if modern:
                verdicts += await guarded(HTTP, transport_checks(spec, inputs))
                verdicts += await guarded(HTTP, missing_capability_status(spec))
            else:
                verdicts += await guarded(TRANSPORTS, http_checks(spec))
        return probed
    except Exception as raised:
        error = leaf(raised)
        stderr = server.stderr if server is not None else ""  # complete: the server has been stopped
        if isinstance(error, NoAnswer):
            because = f" ({fault.message})" if fault is not None else ""
            if fault is not None and " 401 " in fault.message and spec.auth is None:
                because += "; the server wants OAuth: see --oauth-client-id"
            kind = fault.kind if fault is not None else FailureKind.PROTOCOL
            raise ProbeFailed(Failure(kind=kind, message=f"{error}{because}"), stderr) from error
        if isinstance(error, RequestFailed):
            raise ProbeFailed(error.failure, error.stderr or stderr) from error
        if not expected(error):
            raise
        failure = classify(error, during="conformance", fault=fault, timeout=spec.request_timeout)
        raise ProbeFailed(failure, stderr) from error


def results(verdicts: list[RequirementResult], location: Path, era: str = HANDSHAKE_ERA) -> list[CaseResult]:
    """One CaseResult per check of `era`, named with the spec section it enforces (prefixed by the era outside
    the handshake era), at `location` (the server)."""
    modern = era != HANDSHAKE_ERA
    spec, prefix = (SPEC_2026, f"{era}/") if modern else (SPEC, "")
    converted = []
    for verdict in verdicts:
        base = SITE if verdict.section.startswith("seps/") else spec  # an extension's SEP
        failure = None
        if verdict.status is Status.FAIL:
            message = f"{verdict.message} (spec: {base}{verdict.section})"
            failure = Failure(kind=verdict.kind, message=message, check=verdict.check)
        found = cited(verdict.official) if verdict.official else official(verdict.check)
        converted.append(
            CaseResult(
                name=f"{verdict.check} [{prefix}{verdict.section}]",
                file=location,
                status=verdict.status,
                failure=failure,
                reason=verdict.message if verdict.status is Status.SKIP else None,
                duration_s=verdict.seconds,
                warnings=verdict.warnings,
                details={"section": f"{base}{verdict.section}", "official": found},
                protocol=era,
            )
        )
    return converted


async def check_server(
    spec: ConnectSpec,
    location: Path,
    found: list[CaseResult],
    inputs: ProbeInputs | None = None,
    protocol: str = HANDSHAKE_ERA,
) -> None:
    """Probe the server into `found` in each era `protocol` names (`eras.CHOICES`): one result per check, or
    one error per era (with the server's stderr and the time it took) when no check of it could run; with
    both eras, the cross-era diff. When cancelled (a stop signal), the results of the checks made so far.
    `location` is what the results name as their file."""
    eras = await eras_for(spec, protocol)
    probes: list[ProbedServer] = []
    for era in eras:
        started = time.perf_counter()
        verdicts: list[RequirementResult] = []
        failed: ProbeFailed | None = None
        try:
            probes.append(await probe_server(spec, verdicts, inputs, era))
        except ProbeFailed as error:
            failed = error
        finally:  # also when cancelled; the results made before a failure are kept
            found.extend(results(verdicts, location, era))
            if failed is not None:
                found.append(
                    CaseResult(
                        name="connect" if len(eras) == 1 else f"connect [{era}]",
                        file=location,
                        status=Status.ERROR,
                        failure=failed.failure,
                        stderr=failed.stderr,
                        duration_s=time.perf_counter() - started,
                        protocol=era,
                    )
                )
    if len(probes) == 2:
        found.extend(results(cross_era(*probes), location, MODERN_ERA))  # named in the newer spec
