"""DPoP (RFC 9449) in front of oauth_server.py's app: proofs are checked with joserfc at /token and /mcp.

At /token a request with a valid proof gets its token bound to the proof's key (`token_type: DPoP`); at /mcp
a bound token must come as `Authorization: DPoP <token>` with a proof whose `ath` hashes it and whose key is
the bound one, and is then handed on as a bearer token. With `require_nonce`, a proof without the server's
nonce is answered `use_dpop_nonce` with a DPoP-Nonce header (400 at /token, 401 at /mcp). A proof that fails
a check is refused with the reason in `error_description`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from typing import Any

from joserfc import jws, jwt
from joserfc.errors import JoseError
from joserfc.jwk import JWKRegistry
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

NONCE = "server-nonce-7f3a"
ALGORITHMS = ["ES256", "ES384", "ES512", "PS256", "RS256", "EdDSA"]


class ProofRefused(Exception):
    """Why a proof is refused."""


class DPoPLayer:
    """The checks, and what they bound: access token -> JWK thumbprint."""

    def __init__(self, app: ASGIApp, base: str, require_nonce: bool) -> None:
        self.app = app
        self.base = base
        self.require_nonce = require_nonce
        self.bound: dict[str, str] = {}
        self.jtis: set[str] = set()

    def check(self, proof: str, method: str, url: str, token: str | None = None) -> dict[str, Any]:
        """The proof's claims and thumbprint, or ProofRefused."""
        try:
            header = jws.extract_compact(proof.encode()).protected
            jwk = header.get("jwk")
            if header.get("typ") != "dpop+jwt" or not isinstance(jwk, dict) or "d" in jwk:
                raise ProofRefused("typ must be dpop+jwt, with a public jwk")
            key = JWKRegistry.import_key(jwk)
            claims = jwt.decode(proof, key, algorithms=ALGORITHMS).claims
        except (JoseError, ValueError) as error:
            raise ProofRefused(f"the proof does not verify: {error}") from None
        if claims.get("htm") != method or claims.get("htu") != url:
            raise ProofRefused(f"htm/htu {claims.get('htm')} {claims.get('htu')} != {method} {url}")
        if abs(time.time() - float(claims.get("iat", 0))) > 300:
            raise ProofRefused("iat is not recent")
        if claims.get("jti") in self.jtis:
            raise ProofRefused("jti replayed")
        self.jtis.add(str(claims.get("jti")))
        if token is not None:
            digest = base64.urlsafe_b64encode(hashlib.sha256(token.encode()).digest()).rstrip(b"=").decode()
            if claims.get("ath") != digest:
                raise ProofRefused("ath does not hash the access token")
            if self.bound.get(token) != key.thumbprint():
                raise ProofRefused("the token is bound to another key")
        return {**claims, "jkt": key.thumbprint()}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {name.decode().lower(): value.decode() for name, value in scope["headers"]}
        proof = headers.get("dpop")
        if scope["path"] == "/token" and proof:
            await self._token(scope, receive, send, proof)
        elif scope["path"].startswith("/mcp"):
            await self._resource(scope, receive, send, headers)
        else:
            await self.app(scope, receive, send)

    async def _token(self, scope: Scope, receive: Receive, send: Send, proof: str) -> None:
        try:
            claims = self.check(proof, "POST", f"{self.base}/token")
        except ProofRefused as error:
            await JSONResponse({"error": "invalid_dpop_proof", "error_description": str(error)}, 400)(
                scope, receive, send
            )
            return
        if self.require_nonce and claims.get("nonce") != NONCE:
            answer = JSONResponse({"error": "use_dpop_nonce"}, 400, headers={"DPoP-Nonce": NONCE})
            await answer(scope, receive, send)
            return
        start: Message = {}
        body = b""

        async def capture(message: Message) -> None:
            nonlocal start, body
            if message["type"] == "http.response.start":
                start = message
                return
            body += message.get("body", b"")
            if message.get("more_body"):
                return
            if start.get("status") == 200:
                data = json.loads(body)
                data["token_type"] = "DPoP"
                self.bound[data["access_token"]] = str(claims["jkt"])
                body = json.dumps(data).encode()
            kept = [(name, value) for name, value in start["headers"] if name.lower() != b"content-length"]
            await send({**start, "headers": [*kept, (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, capture)

    async def _resource(self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str]) -> None:
        scheme, _, token = headers.get("authorization", "").partition(" ")
        if token in self.bound:
            if scheme.lower() != "dpop":
                await self._refuse(scope, receive, send, "invalid_token", "a DPoP-bound token sent as bearer")
                return
            try:
                url = f"{self.base}{scope['path']}"
                claims = self.check(headers.get("dpop", ""), scope["method"], url, token)
            except ProofRefused as error:
                await self._refuse(scope, receive, send, "invalid_dpop_proof", str(error))
                return
            if self.require_nonce and claims.get("nonce") != NONCE:
                await self._refuse(scope, receive, send, "use_dpop_nonce", "a nonce is required")
                return
            rest = [(name, value) for name, value in scope["headers"] if name.lower() != b"authorization"]
            scope = {**scope, "headers": [*rest, (b"authorization", f"Bearer {token}".encode())]}
        await self.app(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, error: str, why: str) -> None:
        challenge = f'DPoP error="{error}", error_description="{why}"'
        headers = {"WWW-Authenticate": challenge}
        if error == "use_dpop_nonce":
            headers["DPoP-Nonce"] = NONCE
        answer = JSONResponse({"error": error, "error_description": why}, 401, headers=headers)
        await answer(scope, receive, send)
