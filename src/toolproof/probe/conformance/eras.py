"""Which protocol eras a conformance probe speaks with a server (as asked, or found by trying), and what must
be the same in both: the tools, resources and prompts listed, and the features declared."""

from __future__ import annotations

from typing import Any

from toolproof.mcp.errors import expected, leaf
from toolproof.mcp.spec import HANDSHAKE_ERA, ConnectSpec
from toolproof.probe.conformance.checks import ProbedServer, RequirementResult, failed, passed
from toolproof.probe.conformance.wire import MODERN_ERA, NoAnswer, open_link
from toolproof.probe.workdir import in_scratch

CHOICES = (HANDSHAKE_ERA, MODERN_ERA, "both", "auto")
"""The values of `conformance --protocol`."""
SHARED_FEATURES = ("tools", "resources", "prompts", "completions")
IDENTITY = {"tools": "name", "resources": "uri", "prompts": "name"}


async def speaks_modern(spec: ConnectSpec) -> bool:
    """Whether the server answers `server/discover` in the 2026-07-28 era with a result listing that era."""
    try:
        with in_scratch(spec) as placed:
            async with open_link(placed, MODERN_ERA) as link:
                answer = await link.request("server/discover", {})
    except Exception as raised:  # NoAnswer comes inside the link's exception group
        error = leaf(raised)
        if not isinstance(error, NoAnswer) and not expected(error):
            raise
        return False  # the handshake era's probe says what is wrong with reaching the server
    result = answer.get("result")
    return isinstance(result, dict) and MODERN_ERA in (result.get("supportedVersions") or [])


async def eras_for(spec: ConnectSpec, protocol: str) -> tuple[str, ...]:
    """The eras to probe for `--protocol`: as pinned, both, or (auto) the newest one the server speaks."""
    if protocol == "both":
        return (HANDSHAKE_ERA, MODERN_ERA)
    if protocol == "auto":
        return (MODERN_ERA,) if await speaks_modern(spec) else (HANDSHAKE_ERA,)
    if protocol not in CHOICES:
        raise ValueError(f"--protocol {protocol!r}: expected one of {', '.join(CHOICES)}")
    return (protocol,)


def _listed(probe: ProbedServer, kind: str) -> dict[str, Any]:
    return {str(item.get(IDENTITY[kind])): item for item in probe.listed.get(kind) or []}


def cross_era(handshake: ProbedServer, modern: ProbedServer) -> list[RequirementResult]:
    """The same tools (with the same input schemas), resources, prompts and features in both eras."""
    section = "basic/versioning"
    verdicts = []
    for kind in IDENTITY:
        check = f"{kind} listed the same in both eras"
        old, new = _listed(handshake, kind), _listed(modern, kind)
        only_old, only_new = sorted(old.keys() - new.keys()), sorted(new.keys() - old.keys())
        problems = []
        if only_old:
            problems.append(f"only in {HANDSHAKE_ERA}: {', '.join(only_old[:5])}")
        if only_new:
            problems.append(f"only in {MODERN_ERA}: {', '.join(only_new[:5])}")
        if kind == "tools":
            changed = sorted(
                n for n in old.keys() & new.keys() if old[n].get("inputSchema") != new[n].get("inputSchema")
            )
            if changed:
                problems.append(f"inputSchema differs: {', '.join(changed[:5])}")
        verdicts.append(
            failed(check, section, "; ".join(problems))
            if problems
            else passed(check, section, f"{len(old)} listed")
        )
    check = "features declared the same in both eras"
    old_caps = {f for f in SHARED_FEATURES if f in handshake.capabilities}
    new_caps = {f for f in SHARED_FEATURES if f in modern.capabilities}
    if old_caps == new_caps:
        verdicts.append(passed(check, section, ", ".join(sorted(old_caps)) or "none"))
    else:
        verdicts.append(
            failed(
                check,
                section,
                f"{HANDSHAKE_ERA} declares {sorted(old_caps)}, {MODERN_ERA} {sorted(new_caps)}",
            )
        )
    return verdicts
