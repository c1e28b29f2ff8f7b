"""An existing agent reached over HTTP: where to send each user turn, how, and where the answer is."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_BODY: dict[str, Any] = {"input": "{user_message}"}
TargetPlatform = Literal["auto", "custom", "n8n", "flowise"]


class TargetAuth(BaseModel):
    """A credential read from the environment variable `env` and sent in `header`, after `scheme` if any
    (`Authorization: Bearer <token>` by default)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    env: str
    header: str = "Authorization"
    scheme: str | None = "Bearer"


class HttpTarget(BaseModel):
    """The agent endpoint a case's turns are sent to, one request per turn.

    `body` is a JSON template: placeholders in its string values (`{user_message}` or `{input}`,
    `{request_id}` or `{external_id}`, `{session_id}`, and the case's context variables `{NAME}`) are filled
    per request; a case's `custom_body` replaces it. `headers` values expand `${VAR}` from the environment.
    `response_path` (dot path) locates the reply text; `trace_path` the inline trace of tool calls and nodes
    (default: the body itself); `platform` says how that trace is read (`auto`: recognised from its shape).
    Every request carries a fresh id in `request_id_header`.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    url: str
    method: Literal["POST", "PUT", "PATCH"] = "POST"
    headers: dict[str, str] = Field(default_factory=dict)
    auth: TargetAuth | None = None
    body: Any = Field(default_factory=lambda: dict(DEFAULT_BODY))
    response_path: str | None = None
    trace_path: str | None = None
    platform: TargetPlatform = "auto"
    timeout_s: float = 30.0
    request_id_header: str = "x-request-id"
