"""What it takes to reach one server: how to start or address it, and how to answer its own requests."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # annotations only: a command that never connects does not build the server models
    from toolproof.model.server_config import AuthConfig, ElicitationMock, SamplingMock, Transport

ProtocolMode = Literal["legacy", "2026-07-28", "auto"]
HANDSHAKE_ERA = "2025-11-25"
ERAS = (HANDSHAKE_ERA, "2026-07-28", "auto")
"""The values of `--protocol`: a pinned era, or auto (server/discover, falling back to the handshake)."""


def protocol_mode(era: str) -> ProtocolMode:
    """The SDK's connection mode for a `--protocol` value (the 2025-11-25 era is its "legacy" handshake);
    ValueError for anything else."""
    if era == HANDSHAKE_ERA:
        return "legacy"
    if era == "2026-07-28":
        return "2026-07-28"
    if era == "auto":
        return "auto"
    raise ValueError(f"--protocol {era!r}: expected {', '.join(ERAS[:-1])} or {ERAS[-1]}")


@dataclass(frozen=True)
class Mocks:
    """Answers to the server's own requests; None means the capability is not offered.

    `roots` holds paths or file:// URIs: a path becomes file://<absolute path>, named by its basename.
    """

    roots: tuple[str, ...] | None = None
    sampling: SamplingMock | None = None
    elicitation: ElicitationMock | None = None


@dataclass(frozen=True)
class ConnectSpec:
    """How to start (stdio) or reach (sse, http) a server, and the limits of the conversation.

    `env` is the complete environment of a stdio server; `command` is looked up on its PATH and run
    without a shell. `protocol` "legacy" is the 2025-11-25 initialize handshake. `auth` (values
    expanded) makes an `http`/`sse` connection get its token by OAuth, cached under `token_cache`.
    """

    transport: Transport
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    mocks: Mocks = Mocks()
    protocol: ProtocolMode = "legacy"
    request_timeout: float = 30.0
    max_message_bytes: int = 64 * 1024 * 1024
    stop_grace: float = 0.5
    term_grace: float = 0.5
    auth: AuthConfig | None = None
    token_cache: str | None = ".toolproof/oauth"  # noqa: S105 (a directory)
