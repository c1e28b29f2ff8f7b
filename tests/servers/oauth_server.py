"""An OAuth-protected Streamable HTTP MCP server on the official SDK, with its own authorization server.

The SDK serves the authorization server (metadata, /authorize, /token, /register) and the protected-resource
metadata, and checks bearer tokens on /mcp. The provider below keeps everything in memory and approves
every authorization request at once (no person: a redirect with the code straight back), so toolproof can
take the authorization code headlessly. The SDK's token endpoint has no client-credentials grant, so a thin
wrapper answers `grant_type=client_credentials` itself and passes every other token request to the SDK.

The pre-registered client is OAUTH_CLIENT_ID / OAUTH_CLIENT_SECRET from the environment, authenticating with
client_secret_basic (OAUTH_CLIENT_ID + "-post": client_secret_post); dynamic registration is open. Tokens
live --token-ttl seconds and carry the scope `notes`. The jwt-bearer grant (RFC 7523) is answered for any
client whose assertion is OAUTH_WORKLOAD_TOKEN from the environment (`invalid_grant` otherwise). `--dpop`
puts oauth_dpop.py's checks in front (`--dpop nonce`: with server nonces at both endpoints).

Tools: `whoami` (the client and scopes of the token), `echo_token` (the bearer token itself, to prove reports
mask it), `tokens_issued` (how many access tokens the server has issued so far), `jwt_bearer_requests` (how
many jwt-bearer token requests it has answered, refused or not), `dpop_key` (the thumbprint of the key the
token is bound to, empty for a bearer token).

Usage: oauth_server.py --port N [--token-ttl SECONDS] [--dpop on|nonce]
"""

from __future__ import annotations

import argparse
import base64
import os
import secrets
import time
from typing import Any
from urllib.parse import parse_qs, unquote

import uvicorn
from mcp.server import MCPServer
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.shared.auth import JWT_BEARER_GRANT_TYPE, OAuthClientInformationFull, OAuthToken
from oauth_dpop import DPoPLayer  # the sibling module (this file runs as a script)
from pydantic import AnyUrl
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

SCOPE = "notes"
HEADLESS_REDIRECT_URI = (
    "http://127.0.0.1/toolproof/oauth-callback"  # registered for the pre-registered client
)


class ApproveAtOnce:
    """An in-memory authorization server that approves every request without asking anyone."""

    def __init__(self, ttl: int) -> None:
        self.ttl = ttl
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.tokens: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.issued = 0
        self.jwt_bearer_requests = 0

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.clients[client_info.client_id or ""] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(24)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [SCOPE],
            expires_at=time.time() + 300,
            client_id=client.client_id or "",
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        return self.issue(client.client_id or "", authorization_code.scopes, authorization_code.resource)

    def issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        self.issued += 1
        token, refresh = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        expires = int(time.time()) + self.ttl
        self.tokens[token] = AccessToken(
            token=token, client_id=client_id, scopes=scopes, expires_at=expires, resource=resource
        )
        self.refresh[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource
        )
        return OAuthToken(
            access_token=token,
            token_type="Bearer",
            expires_in=self.ttl,
            scope=" ".join(scopes),
            refresh_token=refresh,
        )

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)
        return self.issue(client.client_id or "", scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.tokens.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.tokens.pop(token.token, None)
        self.refresh.pop(token.token, None)

    async def exchange_identity_assertion(self, *args: Any) -> OAuthToken:
        raise NotImplementedError


def client_credentials(app: ASGIApp, provider: ApproveAtOnce) -> ASGIApp:
    """`app`, with POST /token for grant_type=client_credentials answered here (basic or post auth)."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != "/token" or scope["method"] != "POST":
            await app(scope, receive, send)
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        form = {key: values[0] for key, values in parse_qs(body.decode()).items()}
        if form.get("grant_type") == JWT_BEARER_GRANT_TYPE:
            await jwt_bearer(form, provider)(scope, receive, send)
            return
        if form.get("grant_type") != "client_credentials":
            sent = False

            async def replay() -> Message:
                nonlocal sent
                if sent:
                    return await receive()
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}

            await app(scope, replay, send)
            return
        client_id, secret = form.get("client_id", ""), form.get("client_secret", "")
        header = dict(scope["headers"]).get(b"authorization", b"").decode()
        if header.startswith("Basic "):
            client_id, _, secret = base64.b64decode(header[6:]).decode().partition(":")
            client_id, secret = unquote(client_id), unquote(secret)
        client = provider.clients.get(client_id)
        if client is None or not secret or not secrets.compare_digest(client.client_secret or "", secret):
            response = JSONResponse({"error": "invalid_client"}, status_code=401)
        else:
            scopes = form.get("scope", SCOPE).split()
            token = provider.issue(client_id, scopes, form.get("resource"))
            response = JSONResponse(token.model_dump(mode="json", exclude_none=True))
        await response(scope, receive, send)

    return wrapped


def jwt_bearer(form: dict[str, str], provider: ApproveAtOnce) -> JSONResponse:
    """The answer to a jwt-bearer token request: a token for the workload token, `invalid_grant` else."""
    provider.jwt_bearer_requests += 1
    expected = os.environ.get("OAUTH_WORKLOAD_TOKEN", "")
    if not expected or not secrets.compare_digest(form.get("assertion", ""), expected):
        refused = {"error": "invalid_grant", "error_description": "assertion refused"}
        return JSONResponse(refused, status_code=400)
    token = provider.issue(form.get("client_id", ""), form.get("scope", SCOPE).split(), form.get("resource"))
    return JSONResponse(token.model_dump(mode="json", exclude_none=True))


def build(port: int, ttl: int, dpop: str = "") -> ASGIApp:
    base = f"http://127.0.0.1:{port}"
    provider = ApproveAtOnce(ttl)
    client_id, client_secret = (
        os.environ.get("OAUTH_CLIENT_ID", ""),
        os.environ.get("OAUTH_CLIENT_SECRET", ""),
    )
    for suffix, method in (("", "client_secret_basic"), ("-post", "client_secret_post")):
        if client_id:
            provider.clients[client_id + suffix] = OAuthClientInformationFull(
                client_id=client_id + suffix,
                client_secret=client_secret,
                redirect_uris=[AnyUrl(HEADLESS_REDIRECT_URI)],
                grant_types=["authorization_code", "refresh_token", "client_credentials"],
                token_endpoint_auth_method=method,
                scope=SCOPE,
            )
    server = MCPServer(
        "oauth-notes",
        auth_server_provider=provider,
        auth=AuthSettings(
            issuer_url=base,
            resource_server_url=f"{base}/mcp",
            required_scopes=[SCOPE],
            client_registration_options=ClientRegistrationOptions(enabled=True, valid_scopes=[SCOPE]),
            validate_token_resource=False,
        ),
    )

    @server.tool()
    def whoami() -> str:
        """The client and scopes of the bearer token this request carried."""
        token = get_access_token()
        return f"{token.client_id} {' '.join(token.scopes)}" if token else "anonymous"

    @server.tool()
    def echo_token() -> str:
        """The bearer token itself (a server that leaks it)."""
        token = get_access_token()
        return token.token if token else ""

    @server.tool()
    def tokens_issued() -> int:
        """How many access tokens this server has issued."""
        return provider.issued

    @server.tool()
    def jwt_bearer_requests() -> int:
        """How many jwt-bearer token requests this server has answered."""
        return provider.jwt_bearer_requests

    app = client_credentials(server.streamable_http_app(), provider)
    layer = DPoPLayer(app, base, require_nonce=dpop == "nonce") if dpop else None

    @server.tool()
    def dpop_key() -> str:
        """The thumbprint of the key this request's token is bound to (empty: a bearer token)."""
        token = get_access_token()
        return layer.bound.get(token.token, "") if layer and token else ""

    return layer or app


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--token-ttl", type=int, default=3600)
    parser.add_argument("--dpop", choices=("on", "nonce"), default="")
    args = parser.parse_args()
    app = build(args.port, args.token_ttl, args.dpop)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
