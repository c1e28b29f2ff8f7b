"""DPoP (RFC 9449) around the SDK's OAuth flows: a proof on every token request and every authorized MCP
request, `Authorization: DPoP <token>` for tokens the authorization server bound to the key, and one retry
with the server's nonce when either server answers `use_dpop_nonce`. Proofs are signed with joserfc.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import secrets
import time
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import ECKey, JWKRegistry, RSAKey
from mcp.client.auth import OAuthFlowError

DPOP_TYP = "dpop+jwt"
NONCE_HEADER = "DPoP-Nonce"
NONCE_ERROR = "use_dpop_nonce"
_CURVE_ALGORITHMS = {"P-256": "ES256", "P-384": "ES384", "P-521": "ES512"}

Key = ECKey | RSAKey


class DPoPKeyError(OAuthFlowError):
    """A DPoP key file that cannot be used (the message names the file)."""


class DPoPKey:
    """The key that signs a run's proofs: read from a JWK or PEM file, or an ES256 key made for this run."""

    def __init__(self, key: Key) -> None:
        if not key.is_private:
            raise DPoPKeyError("a DPoP key must be a private key")
        self.key = key
        self.algorithm = _algorithm(key)
        self.public_jwk = key.as_dict(private=False)
        self.thumbprint = key.thumbprint()

    @classmethod
    def generate(cls) -> DPoPKey:
        return cls(ECKey.generate_key("P-256"))

    @classmethod
    @functools.cache
    def for_this_run(cls) -> DPoPKey:
        """The ES256 key every connection of this run signs with when no key is given."""
        return cls.generate()

    @classmethod
    def from_file(cls, path: Path) -> DPoPKey:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise DPoPKeyError(f"{path}: cannot read the DPoP key ({error.strerror})") from None
        try:
            key = _parse_key(text)
        except (JoseError, ValueError, TypeError) as error:
            raise DPoPKeyError(f"{path}: not a usable private JWK or PEM key ({error})") from None
        try:
            return cls(key)
        except DPoPKeyError as error:
            raise DPoPKeyError(f"{path}: {error}") from None

    def proof(self, method: str, url: str, access_token: str | None = None, nonce: str | None = None) -> str:
        """A fresh proof for one request (`htu` without query or fragment, `ath` binding the token)."""
        claims: dict[str, Any] = {
            "jti": secrets.token_urlsafe(16),
            "htm": method.upper(),
            "htu": target_uri(url),
            "iat": int(time.time()),
        }
        if access_token is not None:
            claims["ath"] = access_token_hash(access_token)
        if nonce is not None:
            claims["nonce"] = nonce
        header = {"typ": DPOP_TYP, "alg": self.algorithm, "jwk": self.public_jwk}
        return jwt.encode(header, claims, self.key, algorithms=[self.algorithm])


def _parse_key(text: str) -> Key:
    stripped = text.strip()
    if stripped.startswith("{"):
        data = json.loads(stripped)
        key = JWKRegistry.import_key(data)
    else:
        key = None
        for kind in (ECKey, RSAKey):
            try:
                key = kind.import_key(stripped)
                break
            except (JoseError, ValueError, TypeError):
                continue
        if key is None:
            raise ValueError("no EC or RSA key found")
    if not isinstance(key, ECKey | RSAKey):
        raise ValueError(f"a {type(key).__name__} cannot sign a proof")
    return key


def _algorithm(key: Key) -> str:
    if isinstance(key, RSAKey):
        return "PS256"
    curve = str(key.as_dict(private=False).get("crv", ""))
    if curve not in _CURVE_ALGORITHMS:
        raise DPoPKeyError(f"the curve {curve or '(none)'} cannot sign a proof")
    return _CURVE_ALGORITHMS[curve]


def target_uri(url: str) -> str:
    """The `htu` of a request: its URL without query and fragment."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"


def access_token_hash(access_token: str) -> str:
    """The `ath` claim: base64url (unpadded) SHA-256 of the token's ASCII octets."""
    digest = hashlib.sha256(access_token.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def _origin(url: httpx2.URL) -> str:
    return f"{url.scheme}://{url.netloc.decode('ascii')}"


def _token_request(request: httpx2.Request) -> bool:
    if request.method != "POST":
        return False
    try:
        body = request.content.decode("utf-8", errors="replace")
    except httpx2.RequestNotRead:
        return False
    return "grant_type" in parse_qs(body)


def _error_code(response: httpx2.Response) -> str | None:
    try:
        data = response.json()
    except ValueError:
        return None
    return data.get("error") if isinstance(data, dict) else None


def _asks_nonce_at_resource(response: httpx2.Response) -> bool:
    challenge = response.headers.get("WWW-Authenticate", "")
    return response.status_code == 401 and NONCE_ERROR in challenge and NONCE_HEADER in response.headers


def _asks_nonce_at_token_endpoint(response: httpx2.Response) -> bool:
    return (
        response.status_code in (400, 401)
        and NONCE_HEADER in response.headers
        and _error_code(response) == NONCE_ERROR
    )


class DPoPAuth(httpx2.Auth):
    """Wraps an SDK auth flow: adds the proofs, presents bound tokens with the DPoP scheme, answers nonce
    challenges once, and hands the SDK token responses it can read (it knows only the Bearer type)."""

    def __init__(self, inner: httpx2.Auth, key: DPoPKey) -> None:
        self.inner = inner
        self.key = key
        self.nonces: dict[str, str] = {}
        self.unbound: set[str] = set()  # tokens the authorization server issued as Bearer
        self.accepted: list[str] | None = None  # the proof algorithms its metadata lists, if it does

    def _learn_nonce(self, response: httpx2.Response) -> None:
        nonce = response.headers.get(NONCE_HEADER)
        if nonce:
            self.nonces[_origin(response.request.url)] = nonce

    async def _answer(self, response: httpx2.Response, streamed: bool) -> httpx2.Response:
        """A response, read unless it answers the MCP request (which streams), its nonce learned."""
        if not streamed:
            await response.aread()
            self._learn_algorithms(response)
        self._learn_nonce(response)
        return response

    def _learn_algorithms(self, response: httpx2.Response) -> None:
        """Note the proof algorithms authorization server metadata lists, if it lists them."""
        if response.request.method != "GET" or response.status_code != 200:
            return
        try:
            data = response.json()
        except ValueError:
            return
        if isinstance(data, dict) and "token_endpoint" in data:
            listed = data.get("dpop_signing_alg_values_supported")
            self.accepted = [str(name) for name in listed] if isinstance(listed, list) else None

    def _check_algorithm(self, endpoint: httpx2.URL) -> None:
        if self.accepted is not None and self.key.algorithm not in self.accepted:
            accepted = ", ".join(self.accepted) or "nothing"
            raise DPoPKeyError(
                f"the authorization server at {endpoint} accepts DPoP proofs signed with {accepted}, "
                f"not {self.key.algorithm}: give a dpop_key it accepts"
            )

    def _sign(self, request: httpx2.Request, access_token: str | None = None) -> None:
        url = str(request.url)
        nonce = self.nonces.get(_origin(request.url))
        request.headers["DPoP"] = self.key.proof(request.method, url, access_token, nonce)

    def _present(self, request: httpx2.Request) -> None:
        """Sign a request to the MCP server; a bound token goes with the DPoP scheme."""
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() not in ("bearer", "dpop") or not token or token in self.unbound:
            return
        request.headers["Authorization"] = f"DPoP {token}"
        self._sign(request, token)

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        flow = self.inner.async_auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            while True:
                token_request = outgoing is not request and _token_request(outgoing)
                if token_request:
                    self._check_algorithm(outgoing.url)
                    self._sign(outgoing)
                elif outgoing is request:
                    self._present(outgoing)
                response = await self._answer((yield outgoing), outgoing is request)
                if token_request and _asks_nonce_at_token_endpoint(response):
                    self._sign(outgoing)
                    response = await self._answer((yield outgoing), False)
                elif outgoing is request and "DPoP" in outgoing.headers and _asks_nonce_at_resource(response):
                    self._present(outgoing)
                    response = await self._answer((yield outgoing), True)
                if token_request and response.status_code == 200:
                    response = self._readable_token_response(response)
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()

    def _readable_token_response(self, response: httpx2.Response) -> httpx2.Response:
        """The token response with `token_type: DPoP` given as Bearer for the SDK, which reads only that type;
        a token issued as Bearer is remembered, and sent as Bearer."""
        try:
            data = response.json()
        except ValueError:
            return response
        if not isinstance(data, dict) or not isinstance(data.get("access_token"), str):
            return response
        if str(data.get("token_type", "")).lower() != "dpop":
            self.unbound.add(data["access_token"])
            return response
        data["token_type"] = "Bearer"  # noqa: S105 - the SDK's name for the type; the scheme sent stays DPoP
        headers = {key: value for key, value in response.headers.items() if key.lower() != "content-length"}
        return httpx2.Response(
            response.status_code,
            headers=headers,
            content=json.dumps(data).encode(),
            request=response.request,
        )
