"""The grants that present a signed assertion instead of a secret or a person's approval: `jwt_bearer`
(RFC 7523) with a workload identity token, and `enterprise` (the ID token exchanged at the identity
provider for an ID-JAG by RFC 8693 token exchange, then presented by the SDK's identity assertion provider).
Neither registers a client, falls back to another grant or retries a rejected token request.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal, cast
from urllib.parse import parse_qs

import httpx2
from mcp.client.auth import OAuthFlowError, OAuthTokenError, TokenStorage
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider
from mcp.shared.auth import JWT_BEARER_GRANT_TYPE

from toolproof.core.sanitize import add_secret
from toolproof.model.server_config import AuthConfig

TOKEN_EXCHANGE_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:token-exchange"  # noqa: S105 - a grant's name
ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token"  # noqa: S105 - a token type's name
ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag"
EXCHANGE_TIMEOUT_S = 30.0

SecretMethod = Literal["client_secret_basic", "client_secret_post"]


def read_credential(value: str, file: str, what: str) -> Callable[[], str]:
    """A reader of a token given inline (`${VAR}` already expanded) or in a file, read at each use (such files
    are rotated); what it returns is masked in every report."""
    if not value and not file:
        raise OAuthFlowError(f"auth: {what} needs its token: set `{what}` or `{what}_file`")

    def read() -> str:
        if value:
            token = value
        else:
            try:
                token = Path(os.path.expanduser(file)).read_text(encoding="utf-8").strip()
            except OSError as error:
                raise OAuthFlowError(f"auth: cannot read {what}_file {file}: {error.strerror}") from None
            if not token:
                raise OAuthFlowError(f"auth: {what}_file {file} is empty")
        add_secret(token)
        return token

    return read


_refused: dict[str, str] = {}  # an assertion's digest -> why the authorization server refused it (this run)


def _digest(server_url: str, assertion: str) -> str:
    return hashlib.sha256(f"{server_url}\n{assertion}".encode()).hexdigest()


class JwtBearerOAuthProvider(ClientCredentialsOAuthProvider):
    """The RFC 7523 jwt-bearer grant with a workload identity token as the assertion: the client is
    pre-registered (`client_id`, authenticating with `none` unless it has a secret). An assertion the
    authorization server refused is not sent to it again in the run (a rotated token file is)."""

    def __init__(
        self,
        server_url: str,
        storage: TokenStorage,
        client_id: str,
        assertion: Callable[[], str],
        client_secret: str = "",
        method: str = "none",
        scope: str | None = None,
        issuer: str | None = None,
    ) -> None:
        secret_method = cast("SecretMethod", method)
        super().__init__(server_url, storage, client_id, client_secret, secret_method, scope, issuer)
        self._assertion = assertion
        self._client_id = client_id
        self._server_url = server_url
        self._sent = ""

    async def _exchange_token_client_credentials(self) -> httpx2.Request:
        """The client credentials request the SDK builds (issuer checked, client authenticated, resource and
        scope added), turned into a jwt-bearer request."""
        built = await super()._exchange_token_client_credentials()
        form = {name: values[0] for name, values in parse_qs(built.content.decode()).items()}
        form["grant_type"] = JWT_BEARER_GRANT_TYPE
        assertion = self._assertion()
        self._sent = _digest(self._server_url, assertion)
        if self._sent in _refused:
            raise OAuthTokenError(f"not sent again: this workload token was refused ({_refused[self._sent]})")
        form["assertion"] = assertion
        if "authorization" not in built.headers:  # a client that does not authenticate names itself
            form.setdefault("client_id", self._client_id)
        kept = {
            name: value
            for name, value in built.headers.items()
            if name.lower() not in ("content-length", "content-type", "host")
        }
        return httpx2.Request("POST", built.url, data=form, headers=kept)

    async def _handle_token_response(self, response: httpx2.Response) -> None:
        try:
            await super()._handle_token_response(response)
        except OAuthTokenError as error:
            _refused[self._sent] = str(error)
            raise


def id_jag_exchange(config: AuthConfig, id_token: Callable[[], str]) -> Callable[[str, str], Awaitable[str]]:
    """The SDK's assertion provider for the enterprise grant: the ID token exchanged at the identity
    provider's token endpoint (RFC 8693) for an ID-JAG naming the authorization server and the resource."""
    if not config.idp_token_endpoint:
        raise OAuthFlowError("auth: the enterprise grant needs idp_token_endpoint (the identity provider's)")

    async def exchange(audience: str, resource: str) -> str:
        form: dict[str, str] = {
            "grant_type": TOKEN_EXCHANGE_GRANT_TYPE,
            "requested_token_type": ID_JAG_TYPE,
            "subject_token": id_token(),
            "subject_token_type": ID_TOKEN_TYPE,
            "audience": audience,
            "resource": resource,
        }
        if config.scopes:
            form["scope"] = " ".join(config.scopes)
        if config.idp_client_id:
            form["client_id"] = config.idp_client_id
        if config.idp_client_secret:
            form["client_secret"] = config.idp_client_secret
        async with httpx2.AsyncClient(timeout=EXCHANGE_TIMEOUT_S, follow_redirects=False) as client:
            response = await client.post(config.idp_token_endpoint, data=form)
        return _issued_id_jag(response, config.idp_token_endpoint)

    return exchange


def _issued_id_jag(response: httpx2.Response, endpoint: str) -> str:
    try:
        data: Any = response.json()
    except ValueError:
        data = None
    if response.status_code != 200 or not isinstance(data, dict):
        said = " ".join(response.text.split())[:200] or "no body"
        status = response.status_code
        raise OAuthTokenError(f"the identity provider's token exchange at {endpoint} said {status}: {said}")
    token = data.get("access_token")
    if not isinstance(token, str) or not token:
        raise OAuthTokenError(f"the identity provider's token exchange at {endpoint} issued no token")
    issued = data.get("issued_token_type")
    if issued is not None and issued != ID_JAG_TYPE:
        raise OAuthTokenError(f"the identity provider issued a {issued}, not an ID-JAG ({ID_JAG_TYPE})")
    add_secret(token)
    return token


def jwt_bearer_provider(config: AuthConfig, server_url: str, storage: TokenStorage) -> JwtBearerOAuthProvider:
    if not config.client_id:
        raise OAuthFlowError("auth: the jwt_bearer grant needs a client_id")
    method = config.token_endpoint_auth_method or ("client_secret_basic" if config.client_secret else "none")
    if method not in ("none", "client_secret_basic", "client_secret_post"):
        raise OAuthFlowError(f"auth: the jwt_bearer grant cannot authenticate with {method}")
    return JwtBearerOAuthProvider(
        server_url,
        storage,
        config.client_id,
        read_credential(config.assertion, config.assertion_file, "assertion"),
        config.client_secret,
        method,
        scope=" ".join(config.scopes) or None,
        issuer=config.issuer or None,
    )


def enterprise_provider(
    config: AuthConfig, server_url: str, storage: TokenStorage
) -> IdentityAssertionOAuthProvider:
    if not (config.client_id and config.client_secret):
        raise OAuthFlowError("auth: the enterprise grant needs a client_id and a client_secret")
    if not config.issuer:
        raise OAuthFlowError("auth: the enterprise grant needs the authorization server's issuer")
    method = config.token_endpoint_auth_method or "client_secret_basic"
    if method != "client_secret_basic" and method != "client_secret_post":
        raise OAuthFlowError(f"auth: the enterprise grant cannot authenticate with {method}")
    id_token = read_credential(config.id_token, config.id_token_file, "id_token")
    return IdentityAssertionOAuthProvider(
        server_url,
        storage,
        config.client_id,
        config.client_secret,
        config.issuer,
        id_jag_exchange(config, id_token),
        scope=" ".join(config.scopes) or None,
        token_endpoint_auth_method=method,
    )
