"""OAuth for servers over HTTP, on the SDK's client auth: the SDK discovers the metadata (with the 2025-03-26
fallbacks), registers (dynamically or by client ID metadata document), picks scopes, steps up on
`insufficient_scope` and sends resource indicators; this module chooses its provider from the case's `auth:`
block, approves authorization requests (headlessly or in the browser), and caches tokens on disk.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import time
import warnings
import webbrowser
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio
import anyio.to_thread
import httpx2
from mcp.client.auth import OAuthClientProvider, OAuthFlowError
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
)
from mcp.client.auth.utils import union_scopes
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from mcp.shared.exceptions import MCPDeprecationWarning
from pydantic import AnyUrl

from toolproof.core.sanitize import add_secret
from toolproof.core.writing import ignored_directory
from toolproof.mcp.assertion_grants import enterprise_provider, jwt_bearer_provider
from toolproof.mcp.dpop import DPoPAuth, DPoPKey
from toolproof.model.server_config import AuthConfig

DEFAULT_CACHE_DIR = Path(".toolproof") / "oauth"
HEADLESS_REDIRECT_URI = "http://127.0.0.1/toolproof/oauth-callback"
CALLBACK_PATH = "/toolproof/oauth-callback"
EXPIRY_MARGIN_S = 30.0
BROWSER_WAIT_S = 300.0
APPROVAL_TIMEOUT_S = 30.0
CLIENT_NAME = "toolproof"
_CALLBACK_PAGE = b"<!doctype html><title>toolproof</title><p>Authorized. You can close this tab."


class TokenCache:
    """The SDK's token storage on disk: one JSON file (mode 0600) per server, client and grant, under a
    directory that ignores itself in git. Tokens are handed out only until they expire; every token and
    client secret it sees is masked in every report."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._data: dict[str, Any] = self._read()

    def _read(self) -> dict[str, Any]:
        if self.path is None or not self.path.is_file():
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self) -> None:
        if self.path is None:
            return
        directory = self.path.parent
        if directory.parent.name == ".toolproof":
            ignored_directory(directory.parent)
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        descriptor = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchmod(descriptor, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            json.dump(self._data, handle)

    @property
    def expires_at(self) -> float | None:
        """When the stored access token stops being used (its expiry less a margin), if it expires."""
        expires_at = self._data.get("expires_at")
        return float(expires_at) - EXPIRY_MARGIN_S if isinstance(expires_at, int | float) else None

    async def get_tokens(self) -> OAuthToken | None:
        """The stored tokens while the access token lasts, or while a refresh token can renew it."""
        stored = self._data.get("tokens")
        if not isinstance(stored, dict):
            return None
        token = OAuthToken.model_validate(stored)
        expires_at = self.expires_at
        if expires_at is not None and time.time() > expires_at and not token.refresh_token:
            return None
        _mask_token(token)
        return token

    async def set_tokens(self, tokens: OAuthToken) -> None:
        _mask_token(tokens)
        self._data["tokens"] = tokens.model_dump(mode="json", exclude_none=True)
        lifetime = tokens.expires_in
        self._data["expires_at"] = time.time() + lifetime if lifetime is not None else None
        self._write()

    def preset_client(self, client_info: OAuthClientInformationFull) -> None:
        """Hold a pre-registered client (kept in memory only: its secret comes from the suite)."""
        self._data["client"] = client_info.model_dump(mode="json", exclude_none=True)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        stored = self._data.get("client")
        if not isinstance(stored, dict):
            return None
        client = OAuthClientInformationFull.model_validate(stored)
        if client.client_secret:
            add_secret(client.client_secret)
        return client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        if client_info.client_secret:
            add_secret(client_info.client_secret)
        self._data["client"] = client_info.model_dump(mode="json", exclude_none=True)
        self._write()


def _mask_token(token: OAuthToken) -> None:
    add_secret(token.access_token)
    if token.refresh_token:
        add_secret(token.refresh_token)


def cache_path(
    directory: Path | None, server_url: str, config: AuthConfig, dpop_thumbprint: str = ""
) -> Path | None:
    """Where the tokens for this server, client, grant and DPoP key are kept (None: not kept)."""
    if directory is None:
        return None
    key = "\n".join([server_url, config.grant, config.client_id, " ".join(config.scopes), config.issuer])
    if dpop_thumbprint:  # a DPoP-bound token is of use only with its key
        key += f"\ndpop {dpop_thumbprint}"
    return directory / f"{hashlib.sha256(key.encode()).hexdigest()[:24]}.json"


@dataclass
class _Approval:
    """The authorization server's answer to one authorization request: the code, the state and the issuer
    its redirect carried."""

    result: AuthorizationCodeResult | None = None

    def take(self, location: str) -> None:
        query = parse_qs(urlsplit(location).query)
        if "error" in query:
            detail = query.get("error_description", [""])[0]
            raise OAuthFlowError(f"the authorization server refused: {query['error'][0]} {detail}".strip())
        self.result = AuthorizationCodeResult(
            code=query.get("code", [""])[0],
            state=query.get("state", [None])[0],
            iss=query.get("iss", [None])[0],
        )

    async def callback(self) -> AuthorizationCodeResult:
        if self.result is None:
            raise OAuthFlowError("the authorization server sent no authorization code")
        result, self.result = self.result, None
        return result


Approver = tuple[str, Callable[[str], Awaitable[None]], Callable[[], Awaitable[AuthorizationCodeResult]]]


def headless_approval() -> Approver:
    """Approve without a browser: request the authorization URL and read the code from its redirect (for
    authorization servers that approve at once, as test servers do)."""
    approval = _Approval()

    async def redirect(url: str) -> None:
        async with httpx2.AsyncClient(follow_redirects=False, timeout=APPROVAL_TIMEOUT_S) as client:
            response = await client.get(url)
        location = response.headers.get("location")
        if not response.is_redirect or not location:
            said = " ".join(response.text.split())[:200]
            raise OAuthFlowError(
                f"the authorization endpoint answered HTTP {response.status_code} instead of redirecting "
                f"back at once ({said or 'no body'}); if a person must approve there, set `browser: true`"
            )
        approval.take(location)

    return HEADLESS_REDIRECT_URI, redirect, approval.callback


def browser_approval() -> Approver:
    """Approve in the browser: open the authorization URL and take the code at a loopback callback."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(BROWSER_WAIT_S)
    redirect_uri = f"http://127.0.0.1:{listener.getsockname()[1]}{CALLBACK_PATH}"
    approval = _Approval()

    async def redirect(url: str) -> None:
        webbrowser.open(url)

    def wait() -> str:
        with listener:
            while True:
                connection, _ = listener.accept()
                with connection:
                    line = connection.recv(65536).split(b"\r\n", 1)[0].decode("latin-1")
                    target = line.split(" ")[1] if line.count(" ") >= 2 else ""
                    found = urlsplit(target).path == CALLBACK_PATH
                    status = b"200 OK" if found else b"404 Not Found"
                    connection.sendall(
                        b"HTTP/1.1 "
                        + status
                        + b"\r\nContent-Type: text/html\r\nConnection: close\r\n\r\n"
                        + (_CALLBACK_PAGE if found else b"")
                    )
                if found:
                    return target

    async def callback() -> AuthorizationCodeResult:
        try:
            approval.take(await anyio.to_thread.run_sync(wait, abandon_on_cancel=True))
        except TimeoutError as error:
            raise OAuthFlowError(f"nobody approved in the browser within {BROWSER_WAIT_S:.0f} s") from error
        return await approval.callback()

    return redirect_uri, redirect, callback


class _ConfiguredScopes:
    """Mixin: scopes the user configured are always requested, with what the server asks for; cached tokens
    keep their expiry, so the SDK refreshes an expired one instead of sending it."""

    configured_scope: str | None = None
    context: Any

    async def _initialize(self) -> None:
        await super()._initialize()  # type: ignore[misc]
        storage = self.context.storage
        if isinstance(storage, TokenCache) and self.context.current_tokens is not None:
            self.context.token_expiry_time = storage.expires_at

    async def _perform_authorization(self) -> httpx2.Request:
        if self.configured_scope:
            metadata = self.context.client_metadata
            metadata.scope = union_scopes(self.configured_scope, metadata.scope)
        return await super()._perform_authorization()  # type: ignore[misc, no-any-return]


class _ClientCredentials(_ConfiguredScopes, ClientCredentialsOAuthProvider):
    pass


class _PrivateKeyJWT(_ConfiguredScopes, PrivateKeyJWTOAuthProvider):
    pass


class _AuthorizationCode(_ConfiguredScopes, OAuthClientProvider):
    pass


def oauth_provider(
    config: AuthConfig,
    server_url: str,
    cache_dir: Path | None = DEFAULT_CACHE_DIR,
) -> httpx2.Auth:
    """The SDK auth flow the `auth:` block asks for (values already expanded), with DPoP around it if asked:
    a key made for this run binds tokens that die with the run, so they are not cached."""
    secrets = (config.client_secret, config.private_key, config.assertion, config.id_token)
    for secret in (*secrets, config.idp_client_secret):
        if secret:
            add_secret(secret)
    key: DPoPKey | None = None
    if config.dpop_key:
        key = DPoPKey.from_file(Path(config.dpop_key).expanduser())
    elif config.dpop:
        key, cache_dir = DPoPKey.for_this_run(), None
    storage = TokenCache(cache_path(cache_dir, server_url, config, key.thumbprint if key else ""))
    provider: httpx2.Auth
    with warnings.catch_warnings():  # the SDK warns when no issuer pins the credentials; it is optional here
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        if config.grant == "jwt_bearer":
            provider = jwt_bearer_provider(config, server_url, storage)
        elif config.grant == "enterprise":
            provider = enterprise_provider(config, server_url, storage)
        else:
            flow = _provider(config, server_url, storage, config.issuer or None)
            flow.configured_scope = " ".join(config.scopes) or None
            provider = flow
    return DPoPAuth(provider, key) if key else provider


_Flow = _ClientCredentials | _PrivateKeyJWT | _AuthorizationCode


def _provider(config: AuthConfig, server_url: str, storage: TokenCache, issuer: str | None) -> _Flow:
    provider: _Flow
    if config.grant == "client_credentials":
        if not config.client_id:
            raise OAuthFlowError("auth: the client_credentials grant needs a client_id")
        if config.private_key or config.token_endpoint_auth_method == "private_key_jwt":  # noqa: S105
            if not config.private_key:
                raise OAuthFlowError("auth: private_key_jwt needs a private_key (a PEM key)")
            signer = SignedJWTParameters(
                issuer=config.client_id,
                subject=config.client_id,
                signing_key=config.private_key,
                signing_algorithm=config.signing_algorithm,
            )
            provider = _PrivateKeyJWT(
                server_url, storage, config.client_id, signer.create_assertion_provider(), issuer=issuer
            )
        else:
            if not config.client_secret:
                raise OAuthFlowError("auth: client_credentials needs a client_secret or a private_key")
            sent = config.token_endpoint_auth_method or "client_secret_basic"
            if sent != "client_secret_basic" and sent != "client_secret_post":
                raise OAuthFlowError(f"auth: the client_credentials grant cannot authenticate with {sent}")
            provider = _ClientCredentials(
                server_url, storage, config.client_id, config.client_secret, sent, issuer=issuer
            )
    else:
        if config.browser:
            redirect_uri, redirect, callback = browser_approval()
        else:
            redirect_uri, redirect, callback = headless_approval()
        default_method = "client_secret_basic" if config.client_secret else "none"
        method = config.token_endpoint_auth_method or default_method
        metadata = OAuthClientMetadata(
            client_name=CLIENT_NAME,
            redirect_uris=[AnyUrl(redirect_uri)],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method=method,
        )
        if config.client_id:  # pre-registered: the SDK never registers a client it already holds
            storage.preset_client(
                OAuthClientInformationFull(
                    client_id=config.client_id,
                    client_secret=config.client_secret or None,
                    redirect_uris=[AnyUrl(redirect_uri)],
                    token_endpoint_auth_method=method,
                )
            )
        provider = _AuthorizationCode(
            server_url,
            metadata,
            storage,
            redirect_handler=redirect,
            callback_handler=callback,
            client_metadata_url=config.client_metadata_url or None,
        )
    return provider
