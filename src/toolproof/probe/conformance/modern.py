"""The 2026-07-28 era's checks over any transport, in the order they run on one link: `server/discover` first
(its capabilities gate the rest), then the envelope the server must validate, then the listings, what the
capabilities claim, input_required results, the older requirements at this era's wire, and the
extensions (tasks, skills)."""

from __future__ import annotations

from toolproof.probe.conformance import reads, tool_calls
from toolproof.probe.conformance.checks import (
    ProbedServer,
    RequirementCheck,
    RequirementResult,
    invalid_params,
    listings,
    schemas,
    structured_output,
)
from toolproof.probe.conformance.inputs import ProbeInputs
from toolproof.probe.conformance.listen import listen_stdio
from toolproof.probe.conformance.mrtr import input_required
from toolproof.probe.conformance.skills import skills
from toolproof.probe.conformance.stateless import (
    cache_hints,
    declared_handlers,
    deterministic_order,
    discover,
    envelope_required,
    error_ids,
    removed_methods,
    resource_not_found,
    unsupported_version,
)
from toolproof.probe.conformance.steps import run_steps
from toolproof.probe.conformance.tasks import tasks
from toolproof.probe.conformance.wire import Link

SITE = "https://modelcontextprotocol.io/"
SPEC_2026 = f"{SITE}specification/2026-07-28/"

CHECKS_2026: tuple[RequirementCheck, ...] = (
    envelope_required,
    unsupported_version,
    removed_methods,
    error_ids,
    invalid_params,
    listings,
    declared_handlers,
    cache_hints,
    resource_not_found,
    deterministic_order,
    listen_stdio,
    schemas,
    tool_calls.call_tools,
    structured_output,
    tool_calls.content_types,
    tool_calls.tool_errors,
    reads.resources,
    reads.templates,
    reads.prompts,
    input_required,
    tasks,
    skills,
)


async def run_modern_checks(
    link: Link, verdicts: list[RequirementResult], inputs: ProbeInputs | None = None
) -> ProbedServer:
    """Every check of the 2026-07-28 era on one fresh link, in order, into `verdicts`; a request left
    unanswered fails its check, ends the rest. NoAnswer when server/discover gets no result."""
    return await run_steps(link, discover, CHECKS_2026, verdicts, inputs)
