"""How to start or reach an MCP server: the `server:` of a server case, and the servers of an agent case or
the project.

Field names follow mcp-assert's YAML; `Text` fills a string field the way Go's yaml.v3 does.
"""

from __future__ import annotations

import math
import os
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import BeforeValidator, ConfigDict, Field, ValidationInfo, field_validator

from toolproof.model.base import Frozen


def go_string(value: Any) -> Any:
    """Render a YAML scalar the way Go's yaml.v3 fills a string field (`1` -> "1", `true` -> "true")."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isfinite(value) and value == int(value) and abs(value) < 1e21:
            return str(int(value))
        return repr(value)
    return value


def one_or_many(value: Any) -> Any:
    """Accept a single string where a list is expected (a bare number or boolean stays an error)."""
    return [value] if isinstance(value, str) else value


Text = Annotated[str, BeforeValidator(go_string)]
TextList = Annotated[list[Text], BeforeValidator(one_or_many)]


class Transport(StrEnum):
    STDIO = "stdio"
    SSE = "sse"
    HTTP = "http"


class SamplingMock(Frozen):
    """Canned answer to every `sampling/createMessage` the server sends."""

    text: Text = ""
    model: Text = "mock"
    stop_reason: Text = "end_turn"


class ElicitationMock(Frozen):
    """Answer to every `elicitation/create`: an action and, for accept, the content."""

    model_config = ConfigDict(extra="allow", frozen=True)

    action: Literal["accept", "decline", "cancel"] = "accept"
    content: dict[str, Any] | None = None

    def response_content(self) -> dict[str, Any]:
        """The form content sent back: `content`, or else every key other than `action`."""
        if self.content is not None:
            return dict(self.content)
        return dict(self.model_extra or {})


class ClientCapabilities(Frozen):
    """Client-side features offered to the server, each answered by a configured mock."""

    roots: TextList | None = None
    sampling: SamplingMock | None = None
    elicitation: ElicitationMock | None = None


class AuthConfig(Frozen):
    """OAuth for an `http`/`sse` server: how toolproof obtains its access token.

    `client_credentials` needs `client_id` and `client_secret` (or `private_key`, a PEM key for
    private_key_jwt); `authorization_code` runs PKCE, approving headlessly unless `browser` is set, and
    registers dynamically (or by `client_metadata_url`) when `client_id` is empty. `jwt_bearer` presents a
    workload identity token (`assertion`, or `assertion_file` read at each use) for a pre-registered
    `client_id`; `enterprise` exchanges an ID token (`id_token` or `id_token_file`) at the identity provider's
    `idp_token_endpoint` for an ID-JAG, then presents it to the authorization server named by `issuer` with
    `client_id` and `client_secret`. `dpop` binds tokens to a key (`dpop_key`: a JWK or PEM file; else an
    ES256 key made per run). Values take `${VAR}`.
    """

    grant: Literal["client_credentials", "authorization_code", "jwt_bearer", "enterprise"] = (
        "client_credentials"
    )
    client_id: Text = ""
    client_secret: Text = ""
    private_key: Text = ""
    signing_algorithm: Text = "RS256"
    token_endpoint_auth_method: (
        Literal["none", "client_secret_post", "client_secret_basic", "private_key_jwt"] | None
    ) = None
    scopes: TextList = Field(default_factory=list)
    client_metadata_url: Text = ""
    issuer: Text = ""
    browser: bool = False
    assertion: Text = ""
    assertion_file: Text = ""
    id_token: Text = ""
    id_token_file: Text = ""
    idp_token_endpoint: Text = ""
    idp_client_id: Text = ""
    idp_client_secret: Text = ""
    dpop: bool = False
    dpop_key: Text = ""


class ServerConfig(Frozen):
    """How to start or reach the server under test."""

    command: Text = ""
    args: list[Text] = Field(default_factory=list)
    env: dict[str, Text] = Field(default_factory=dict)
    cwd: Text | None = None
    transport: Transport = Transport.STDIO
    url: Text = ""
    headers: dict[str, Text] = Field(default_factory=dict)
    docker: Text = ""
    client_capabilities: ClientCapabilities | None = None
    auth: AuthConfig | None = None

    def anchored(self, directory: Path) -> ServerConfig:
        """This server with a relative `cwd` taken from `directory` (the directory of the file that names
        it); an absolute `cwd`, or one that starts with a `{{...}}` template, stays as written."""
        if self.cwd is None or self.cwd.startswith("{{") or os.path.isabs(self.cwd):
            return self
        return self.model_copy(update={"cwd": os.path.normpath(os.path.join(directory.absolute(), self.cwd))})

    @field_validator("url")
    @classmethod
    def _url_fits_transport(cls, url: str, info: ValidationInfo) -> str:
        if url and info.data.get("transport") is Transport.STDIO:
            raise ValueError("a url needs transport: http or sse (a stdio server is started by its command)")
        if "${" not in url:  # a variable's value is checked once it is expanded
            check_url(url)
        return url


def check_url(url: str) -> None:
    """Raise ValueError naming what makes `url` unusable (`http://[::1` has no closing bracket)."""
    try:
        urlsplit(url).port  # noqa: B018 - reading the port checks it
    except ValueError as error:
        raise ValueError(f"not a valid URL: {error}") from None
