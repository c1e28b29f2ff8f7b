"""`toolproof conformance`: protocol checks for any server, one result per check, each citing the spec."""

from __future__ import annotations

import time
from pathlib import Path

import anyio

from toolproof.mcp.errors import RequestFailed, classify, expected, leaf
from toolproof.mcp.spec import ConnectSpec
from toolproof.model.result import CaseResult, Failure, FailureKind, Status
from toolproof.model.suite import Transport
from toolproof.probe.conformance.checks import SPEC, Verdict, run_checks
from toolproof.probe.conformance.http_checks import http_checks
from toolproof.probe.conformance.wire import NoAnswer, open_link

__all__ = ["SPEC", "ProbeFailed", "probe_server", "results"]


class ProbeFailed(Exception):
    """The server could not be started, reached or initialized: no check could run."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.message)
        self.failure = failure


async def probe_server(spec: ConnectSpec) -> list[Verdict]:
    """Every check that applies to the server's transport; ProbeFailed when none could run."""
    try:
        async with open_link(spec) as link:
            verdicts = await run_checks(link)
        if spec.transport is Transport.HTTP:
            verdicts += await http_checks(spec)
    except Exception as raised:
        error = leaf(raised)
        if isinstance(error, NoAnswer):
            raise ProbeFailed(Failure(kind=FailureKind.TIMEOUT, message=str(error))) from error
        if isinstance(error, RequestFailed):
            raise ProbeFailed(error.failure) from error
        if not expected(error):
            raise
        raise ProbeFailed(classify(error, during="conformance", timeout=spec.request_timeout)) from error
    return verdicts


def results(verdicts: list[Verdict], label: str, started: float) -> list[CaseResult]:
    """One CaseResult per check, named with the spec section it enforces."""
    elapsed = (time.perf_counter() - started) / max(len(verdicts), 1)
    converted = []
    for verdict in verdicts:
        failure = None
        if verdict.status is Status.FAIL:
            message = f"{verdict.message} (spec: {SPEC}{verdict.section})"
            failure = Failure(kind=FailureKind.PROTOCOL, message=message, check=verdict.check)
        converted.append(
            CaseResult(
                name=f"{verdict.check} [{verdict.section}]",
                file=Path(label.replace("://", "-").replace("/", "-")),
                status=verdict.status,
                failure=failure,
                reason=verdict.message if verdict.status is Status.SKIP else None,
                duration_s=elapsed,
            )
        )
    return converted


def run(spec: ConnectSpec, label: str) -> list[CaseResult]:
    """Probe the server and give the results (raises ProbeFailed)."""
    started = time.perf_counter()
    verdicts = anyio.run(probe_server, spec)
    return results(verdicts, label, started)
