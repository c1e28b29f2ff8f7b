"""The conformance checks in the order they run on one link: the table a module of checks registers in.

A step is an async function of the ProbedServer giving its results; a passive step reads what the server
sent during the probe once every step has run. A step that adds requirements the official suite tests adds
their rows to `official.OFFICIAL`.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from toolproof.probe.conformance import checks, reads, server_messages, tool_calls
from toolproof.probe.conformance.checks import (
    ProbedServer,
    RequirementCheck,
    RequirementResult,
    failed,
    handshake,
    timed,
)
from toolproof.probe.conformance.inputs import ProbeInputs
from toolproof.probe.conformance.wire import Link, NoAnswer

STEPS: tuple[RequirementCheck, ...] = (
    checks.ping,
    checks.unknown_method,
    checks.invalid_params,
    checks.request_ids,
    checks.listings,
    checks.honest_capabilities,
    checks.schemas,
    tool_calls.call_tools,
    checks.structured_output,
    tool_calls.content_types,
    tool_calls.tool_errors,
    reads.resources,
    reads.templates,
    reads.unsubscribe,
    reads.prompts,
    checks.cancellation,
)
PASSIVE: tuple[Callable[[ProbedServer], list[RequirementResult]], ...] = (
    checks.passive,
    server_messages.server_messages,
)


async def run_checks(
    link: Link, verdicts: list[RequirementResult], inputs: ProbeInputs | None = None
) -> None:
    """Every step on one fresh link, in order, into `verdicts`; a request left unanswered fails its step and
    ends the rest."""
    started = time.perf_counter()
    made, capabilities = await handshake(link)
    verdicts += timed(made, started)
    server = ProbedServer(link, capabilities, inputs=inputs or ProbeInputs())
    for step in STEPS:
        started = time.perf_counter()
        try:
            verdicts += timed(await step(server), started)
        except NoAnswer as error:
            name = getattr(step, "__name__", "a step").replace("_", " ")
            verdicts.append(failed(name, "basic#responses", str(error)))
            return
    for look in PASSIVE:
        verdicts += look(server)
