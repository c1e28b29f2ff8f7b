"""`toolproof conformance`: protocol checks for any server, one result per check, each citing the spec."""

from __future__ import annotations

import time
from pathlib import Path

from toolproof.mcp.errors import RequestFailed, TransportFault, classify, expected, leaf
from toolproof.mcp.process import ServerProcess
from toolproof.mcp.spec import ConnectSpec
from toolproof.mcp.stdio import StdioChannel
from toolproof.model.result import CaseResult, Failure, FailureKind, Status
from toolproof.model.server_config import Transport
from toolproof.probe.conformance.checks import SPEC, RequirementResult
from toolproof.probe.conformance.http_checks import http_checks
from toolproof.probe.conformance.inputs import ProbeInputs
from toolproof.probe.conformance.official import official
from toolproof.probe.conformance.steps import run_checks
from toolproof.probe.conformance.wire import NoAnswer, open_link
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
    spec: ConnectSpec, verdicts: list[RequirementResult], inputs: ProbeInputs | None = None
) -> None:
    """Every check that applies to the server's transport, into `verdicts` as each is made; ProbeFailed when
    none could run."""
    fault: TransportFault | None = None
    server: ServerProcess | None = None
    try:
        with in_scratch(spec) as placed:
            async with open_link(placed) as link:
                if isinstance(link.channel, StdioChannel):
                    server = link.channel.server
                try:
                    await run_checks(link, verdicts, inputs)
                finally:
                    fault = link.channel.fault
        if spec.transport is Transport.HTTP:
            verdicts += await http_checks(spec)
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


def results(verdicts: list[RequirementResult], location: Path) -> list[CaseResult]:
    """One CaseResult per check, named with the spec section it enforces, at `location` (the server)."""
    converted = []
    for verdict in verdicts:
        failure = None
        if verdict.status is Status.FAIL:
            message = f"{verdict.message} (spec: {SPEC}{verdict.section})"
            failure = Failure(kind=FailureKind.PROTOCOL, message=message, check=verdict.check)
        converted.append(
            CaseResult(
                name=f"{verdict.check} [{verdict.section}]",
                file=location,
                status=verdict.status,
                failure=failure,
                reason=verdict.message if verdict.status is Status.SKIP else None,
                duration_s=verdict.seconds,
                warnings=verdict.warnings,
                details={"section": f"{SPEC}{verdict.section}", "official": official(verdict.check)},
            )
        )
    return converted


async def check_server(
    spec: ConnectSpec, location: Path, found: list[CaseResult], inputs: ProbeInputs | None = None
) -> None:
    """Probe the server into `found`: one result per check, or one error (with the server's stderr and the
    time it took) when no check could run; when cancelled (a stop signal), the results of the checks made so
    far. `location` is what the results name as their file."""
    started = time.perf_counter()
    verdicts: list[RequirementResult] = []
    failed: ProbeFailed | None = None
    try:
        await probe_server(spec, verdicts, inputs)
    except ProbeFailed as error:
        failed = error
    finally:  # also when cancelled
        if failed is None:
            found.extend(results(verdicts, location))
        else:
            found.append(
                CaseResult(
                    name="connect",
                    file=location,
                    status=Status.ERROR,
                    failure=failed.failure,
                    stderr=failed.stderr,
                    duration_s=time.perf_counter() - started,
                )
            )
