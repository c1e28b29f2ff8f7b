"""What the checks of the 2026-07-28 extensions share (tasks, SEP-2663, in tasks.py; skills, SEP-2640, in
skills.py): whether the server declares an extension under `capabilities.extensions` of `server/discover`,
the `_meta` of a request from a client that declares one, and the official ids their verdicts carry."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import mcp_types as types

from toolproof.probe.conformance.checks import (
    ProbedServer,
    RequirementResult,
    failed,
    passed,
    said,
    skipped,
)
from toolproof.probe.conformance.official import alpha_ids
from toolproof.probe.conformance.wire import Message


def declared(probe: ProbedServer, extension: str) -> bool:
    extensions = probe.capabilities.get("extensions")
    return isinstance(extensions, dict) and extension in extensions


def with_extension(extension: str) -> dict[str, Any]:
    """The `_meta` of a request from a client that declares `extension` (and nothing else)."""
    return {types.CLIENT_CAPABILITIES_META_KEY: {"extensions": {extension: {}}}}


def named(verdicts: list[RequirementResult]) -> list[RequirementResult]:
    """`verdicts` carrying the official alpha.12 ids their rows in official.py name (as the 2026-07-28 era's
    other verdicts carry theirs)."""
    return [replace(verdict, official=alpha_ids(verdict.check)) for verdict in verdicts]


def served_only_if_declared(
    check: str, section: str, extension: str, is_declared: bool, served: bool, method: str, answer: Message
) -> RequirementResult:
    """What `answer` to `method` (served or not) shows against whether `extension` is declared."""
    if served and not is_declared:
        return failed(check, section, f"{method} got {said(answer)}, yet {extension} is not declared")
    if is_declared and not served:
        return failed(check, section, f"{extension} is declared, yet {method} got {said(answer)}")
    if not is_declared:
        return skipped(check, section, f"the server neither declares nor serves {extension}")
    return passed(check, section)
