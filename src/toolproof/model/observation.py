"""What came back from a server request, in one shape whatever the request was; and `Observed`, the shape
every source's observation shares (a server case's exchange, an agent run's transcript)."""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from toolproof.model.result import Failure


class Observed(Protocol):
    """What a report or a runner reads alike from any observation: `stopped`, the classified failure that
    ended observing early (a server that timed out, an agent run cut short), None when it went to its end."""

    @property
    def stopped(self) -> Failure | None: ...


class Notification(BaseModel):
    """A server notification seen on the wire, with its arrival time in seconds since the session began."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    method: str
    params: Any = None
    at: float = 0.0


class LogMessage(BaseModel):
    """A `notifications/message` entry."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    level: str
    data: Any = None
    logger: str | None = None


class RpcError(BaseModel):
    """A JSON-RPC error response."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    code: int
    message: str
    data: Any = None


class TaskRecord(BaseModel):
    """How a tool call answered with a task went: its id, every status seen in order (repeats in a row once;
    the status it was created with first), the last one, its last statusMessage, the JSON-RPC error of a
    failed task, how many `tasks/get` polls and `tasks/update` answers were sent, whether `tasks/cancel` was,
    and the seconds from the call to the terminal status."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    task_id: str
    states: list[str] = Field(default_factory=list)
    status: str = ""
    status_message: str | None = None
    error: dict[str, Any] | None = None
    polls: int = 0
    updates: int = 0
    cancel_sent: bool = False
    duration_s: float = 0.0


class Observation(BaseModel):
    """The answer to the checked request.

    `text` is what the text expectations read: the result's text content blocks joined with a newline (for
    listings and completions, the result's JSON). `tool` is the called tool's declaration, against whose
    outputSchema the result is checked. `files_before` / `files_after` hold the contents of the files the
    expectations name (None = absent; a str = present but not a readable regular file, and why), read by
    the runner so that checkers stay pure.
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    text: str = ""
    is_error: bool = False
    content: list[dict[str, Any]] = Field(default_factory=list)
    structured: Any = None
    result: dict[str, Any] = Field(default_factory=dict)
    notifications: list[Notification] = Field(default_factory=list)
    logs: list[LogMessage] = Field(default_factory=list)
    progress_count: int = 0
    files_before: dict[str, bytes | str | None] = Field(default_factory=dict)
    files_after: dict[str, bytes | str | None] = Field(default_factory=dict)
    duration_s: float = 0.0
    tool: dict[str, Any] | None = None  # the called tool as tools/list declared it, when it was listed
    error: RpcError | None = None  # the JSON-RPC error that answered the request, when the case expects one
    task: TaskRecord | None = None  # the task the call was answered with (2026-07-28 tasks extension)
