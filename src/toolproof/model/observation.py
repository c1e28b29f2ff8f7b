"""What came back from a server request, in one shape whatever the request was."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Notification(BaseModel):
    """A server notification seen on the wire, with its arrival time in seconds since the session began."""

    model_config = ConfigDict(frozen=True)

    method: str
    params: Any = None
    at: float = 0.0


class LogMessage(BaseModel):
    """A `notifications/message` entry."""

    model_config = ConfigDict(frozen=True)

    level: str
    data: Any = None
    logger: str | None = None


class RpcError(BaseModel):
    """A JSON-RPC error response."""

    model_config = ConfigDict(frozen=True)

    code: int
    message: str
    data: Any = None


class Observation(BaseModel):
    """The answer to the checked request.

    `text` is what the text expectations read: the result's text content blocks joined with a newline (for
    listings and completions, the result's JSON). `tool` is the called tool's declaration, against whose
    outputSchema the result is checked. `files_before` / `files_after` hold the contents of the files the
    expectations name (None = absent; a str = present but not a readable regular file, and why), read by
    the runner so that checkers stay pure.
    """

    model_config = ConfigDict(frozen=True)

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
