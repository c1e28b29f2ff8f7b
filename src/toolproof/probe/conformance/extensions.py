"""What the checks of the 2026-07-28 extensions share (tasks, SEP-2663, in tasks.py; skills, SEP-2640, in
skills.py): whether the server declares an extension under `capabilities.extensions` of `server/discover`,
and the `_meta` of a request from a client that declares one."""

from __future__ import annotations

from typing import Any

import mcp_types as types

from toolproof.probe.conformance.checks import ProbedServer


def declared(probe: ProbedServer, extension: str) -> bool:
    extensions = probe.capabilities.get("extensions")
    return isinstance(extensions, dict) and extension in extensions


def with_extension(extension: str) -> dict[str, Any]:
    """The `_meta` of a request from a client that declares `extension` (and nothing else)."""
    return {types.CLIENT_CAPABILITIES_META_KEY: {"extensions": {extension: {}}}}
