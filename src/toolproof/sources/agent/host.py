"""What the agent loop calls tools through: a catalog of tool specs and a way to call one.

The live host talks MCP to the scenario's servers; a cassette host records or replays those exchanges. The
loop never knows which it has.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from toolproof.providers.base import ToolSpec


@dataclass(frozen=True)
class ToolOutcome:
    """The result of one tool call: its text for the model, the raw content for checks, the error flag."""

    text: str
    content: Any = None
    is_error: bool = False
    duration_ms: float = 0.0


class ToolHost(Protocol):
    """The tools a model may call during a run."""

    async def list_tools(self) -> tuple[ToolSpec, ...]: ...

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolOutcome: ...
