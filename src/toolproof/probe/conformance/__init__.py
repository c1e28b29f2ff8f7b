"""`toolproof conformance`: protocol checks for any server, one result per check, each citing the spec."""

from __future__ import annotations

from pathlib import Path

from toolproof.mcp.errors import RequestFailed, TransportFault, classify, expected, leaf
from toolproof.mcp.spec import ConnectSpec
from toolproof.model.result import CaseResult, Failure, FailureKind, Status
from toolproof.model.server_config import Transport
from toolproof.probe.conformance.checks import SPEC, Verdict, run_checks
from toolproof.probe.conformance.http_checks import http_checks
from toolproof.probe.conformance.wire import NoAnswer, open_link

__all__ = ["SPEC", "ProbeFailed", "check_server", "probe_server", "results"]


class ProbeFailed(Exception):
    """The server could not be started, reached or initialized: no check could run."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.message)
        self.failure = failure


async def probe_server(spec: ConnectSpec, verdicts: list[Verdict]) -> None:
    """Every check that applies to the server's transport, into `verdicts` as each is made; ProbeFailed when
    none could run."""
    fault: TransportFault | None = None
    try:
        async with open_link(spec) as link:
            try:
                await run_checks(link, verdicts)
            finally:
                fault = link.channel.fault
        if spec.transport is Transport.HTTP:
            verdicts += await http_checks(spec)
    except Exception as raised:
        error = leaf(raised)
        if isinstance(error, NoAnswer):
            because = f" ({fault.message})" if fault is not None else ""
            if fault is not None and " 401 " in fault.message and spec.auth is None:
                because += "; the server wants OAuth: see --oauth-client-id"
            kind = fault.kind if fault is not None else FailureKind.PROTOCOL
            raise ProbeFailed(Failure(kind=kind, message=f"{error}{because}")) from error
        if isinstance(error, RequestFailed):
            raise ProbeFailed(error.failure) from error
        if not expected(error):
            raise
        failure = classify(error, during="conformance", fault=fault, timeout=spec.request_timeout)
        raise ProbeFailed(failure) from error


def results(verdicts: list[Verdict], label: str) -> list[CaseResult]:
    """One CaseResult per check, named with the spec section it enforces."""
    converted = []
    for verdict in verdicts:
        failure = None
        if verdict.status is Status.FAIL:
            message = f"{verdict.message} (spec: {SPEC}{verdict.section})"
            failure = Failure(kind=FailureKind.PROTOCOL, message=message, check=verdict.check)
        converted.append(
            CaseResult(
                name=f"{verdict.check} [{verdict.section}]",
                file=_file(label),
                status=verdict.status,
                failure=failure,
                reason=verdict.message if verdict.status is Status.SKIP else None,
                duration_s=verdict.seconds,
            )
        )
    return converted


async def check_server(spec: ConnectSpec, label: str, found: list[CaseResult]) -> None:
    """Probe the server into `found`: one result per check, or one error when no check could run; when
    cancelled (a stop signal), the results of the checks made so far."""
    verdicts: list[Verdict] = []
    failure: Failure | None = None
    try:
        await probe_server(spec, verdicts)
    except ProbeFailed as error:
        failure = error.failure
    finally:  # also when cancelled
        if failure is None:
            found.extend(results(verdicts, label))
        else:
            found.append(CaseResult(name="connect", file=_file(label), status=Status.ERROR, failure=failure))


def _file(label: str) -> Path:
    return Path(label.replace("://", "-").replace("/", "-"))
