"""What one probe call gave (kept apart from the connection so pure modules need not load the MCP SDK)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolproof.model.result import Failure


@dataclass(frozen=True)
class CallOutcome:
    """A result as sent (`result`) or a `failure`, how long the call took, the server's stderr tail, the
    protocol revision spoken with the server (None when no session was open)."""

    result: dict[str, Any] | None
    failure: Failure | None
    duration_s: float
    stderr: str = ""
    protocol: str | None = None
