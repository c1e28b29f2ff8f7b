"""Options that shape how server cases run, set once per run from the command line."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from toolproof.model.server_config import AuthConfig

Protocol = Literal["legacy", "2026-07-28", "auto"]

DEFAULT_TIMEOUT_S = 30.0
NOTIFICATION_GRACE_S = 0.25
SUBSCRIPTION_WAIT_S = 5.0
"""How long `expect_notification: true` waits for a resource update after the read (--subscription-wait)."""


@dataclass(frozen=True)
class ServerOptions:
    """Run-wide settings for server cases.

    `environ` is the base environment every stdio server inherits before the case's own `env` (by default
    toolproof's own environment, as mcp-assert does) and the source of `${VAR}` expansion.
    """

    environ: Mapping[str, str]
    fixture: Path | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S
    server_override: tuple[str, ...] = ()
    docker: str = ""
    protocol: Protocol = "legacy"
    notification_grace_s: float = NOTIFICATION_GRACE_S
    subscription_wait_s: float = SUBSCRIPTION_WAIT_S
    max_message_bytes: int = 64 * 1024 * 1024
    auth: AuthConfig | None = None  # OAuth for http/sse servers whose case gives no `auth:` (--oauth-*)
    reuse_server: bool = False  # read-only cases with the same server identity share one server
