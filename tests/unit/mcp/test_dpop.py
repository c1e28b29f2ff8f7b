"""DPoP proofs and keys (RFC 9449), each proof verified with joserfc as a server would verify it."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from joserfc import jws, jwt
from joserfc.jwk import ECKey, JWKRegistry, RSAKey

from toolproof.mcp.auth import cache_path, oauth_provider
from toolproof.mcp.dpop import DPoPAuth, DPoPKey, DPoPKeyError, access_token_hash
from toolproof.model.server_config import AuthConfig

URL = "http://127.0.0.1:9/mcp"
# RFC 9449 §7.1's example access token and the `ath` of its example proof
RFC_TOKEN = "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"
RFC_ATH = "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo"


def verified(proof: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The proof's header and claims, once its signature verifies with the key its header carries (an
    RSA key's header is longer than joserfc's default limit)."""
    registry = jws.JWSRegistry(algorithms=["ES256", "ES384", "ES512", "PS256", "EdDSA"])
    registry.max_header_length = 2048
    header = jws.extract_compact(proof.encode(), registry=registry).protected
    key = JWKRegistry.import_key(header["jwk"])
    return header, jwt.decode(proof, key, algorithms=[header["alg"]], registry=registry).claims


def test_a_proof_is_an_es256_dpop_jwt_with_the_public_key_only() -> None:
    key = DPoPKey.generate()
    header, claims = verified(key.proof("post", "https://as.example/token?x=1#frag"))
    assert header["typ"] == "dpop+jwt" and header["alg"] == "ES256"
    assert "d" not in header["jwk"] and header["jwk"]["crv"] == "P-256"
    assert claims["htm"] == "POST" and claims["htu"] == "https://as.example/token"
    assert abs(claims["iat"] - time.time()) < 5
    assert "ath" not in claims and "nonce" not in claims


def test_every_proof_is_fresh() -> None:
    key = DPoPKey.generate()
    jtis = {verified(key.proof("POST", URL))[1]["jti"] for _ in range(20)}
    assert len(jtis) == 20


def test_a_proof_with_a_token_binds_it_and_carries_the_nonce() -> None:
    key = DPoPKey.generate()
    _, claims = verified(key.proof("GET", URL, access_token=RFC_TOKEN, nonce="n-1"))
    assert claims["ath"] == RFC_ATH == access_token_hash(RFC_TOKEN)
    assert claims["nonce"] == "n-1"


def test_the_thumbprint_is_the_keys_rfc_7638_thumbprint() -> None:
    key = DPoPKey.generate()
    public = JWKRegistry.import_key(key.public_jwk)
    assert key.thumbprint == public.thumbprint()


def test_a_proof_from_a_tampered_key_does_not_verify() -> None:
    proof = DPoPKey.generate().proof("POST", URL)
    other = ECKey.generate_key("P-256")
    with pytest.raises(Exception, match="signature"):
        jwt.decode(proof, other, algorithms=["ES256"])


@pytest.mark.parametrize(
    ("make", "algorithm"),
    [
        (lambda: json.dumps(ECKey.generate_key("P-256").as_dict(private=True)), "ES256"),
        (lambda: ECKey.generate_key("P-384").as_pem(private=True).decode(), "ES384"),
        (lambda: RSAKey.generate_key(2048).as_pem(private=True).decode(), "PS256"),
    ],
    ids=["jwk", "ec-pem", "rsa-pem"],
)
def test_a_key_file_signs_with_its_algorithm(make: Any, algorithm: str, tmp_path: Path) -> None:
    path = tmp_path / "dpop.key"
    path.write_text(make(), encoding="utf-8")
    key = DPoPKey.from_file(path)
    header, _ = verified(key.proof("POST", URL))
    assert header["alg"] == algorithm == key.algorithm
    assert DPoPKey.from_file(path).thumbprint == key.thumbprint  # the same key on every run


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (json.dumps(ECKey.generate_key("P-256").as_dict(private=False)), "must be a private key"),
        ("not a key", "not a usable private JWK or PEM key"),
        ('{"kty": "oct", "k": "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"}', "not a usable private JWK or PEM key"),
    ],
    ids=["public", "garbage", "symmetric"],
)
def test_an_unusable_key_file_is_named(text: str, message: str, tmp_path: Path) -> None:
    path = tmp_path / "dpop.jwk"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DPoPKeyError, match=f"{path}: .*{message}"):
        DPoPKey.from_file(path)


def test_a_missing_key_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(DPoPKeyError, match=r"missing\.jwk: cannot read the DPoP key"):
        DPoPKey.from_file(tmp_path / "missing.jwk")


def test_dpop_wraps_the_flow_and_keeps_no_token_bound_to_a_runs_key(tmp_path: Path) -> None:
    config = AuthConfig(client_id="c", client_secret="s", dpop=True)
    made, again = oauth_provider(config, URL, tmp_path), oauth_provider(config, URL, tmp_path)
    assert isinstance(made, DPoPAuth) and isinstance(again, DPoPAuth)
    assert made.key is again.key  # one key for the run
    assert not list(tmp_path.iterdir())
    key_file = tmp_path / "k.jwk"
    key_file.write_text(json.dumps(ECKey.generate_key("P-256").as_dict(private=True)), encoding="utf-8")
    keyed = oauth_provider(config.model_copy(update={"dpop_key": str(key_file)}), URL, tmp_path)
    assert isinstance(keyed, DPoPAuth)
    assert keyed.key.thumbprint == DPoPKey.from_file(key_file).thumbprint


def test_the_cache_file_depends_on_the_dpop_key(tmp_path: Path) -> None:
    config = AuthConfig(client_id="c", client_secret="s", dpop_key="k.jwk")
    one, other = cache_path(tmp_path, URL, config, "one"), cache_path(tmp_path, URL, config, "other")
    assert one != other != cache_path(tmp_path, URL, config)


class TokenThenCall(httpx2.Auth):
    """An SDK-like flow: one token request, then the MCP request with the token it got as Bearer."""

    def __init__(self) -> None:
        self.token_answer: dict[str, Any] = {}

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        answer = yield httpx2.Request("POST", TOKEN_URL, data={"grant_type": "client_credentials"})
        self.token_answer = answer.json()
        request.headers["Authorization"] = f"Bearer {self.token_answer['access_token']}"
        yield request


TOKEN_URL = "http://127.0.0.1:8/token"  # the authorization server: another origin, another nonce


def reply(request: httpx2.Request, status: int, body: dict[str, Any], **headers: str) -> httpx2.Response:
    return httpx2.Response(status, json=body, headers=headers, request=request)


async def drive(token_type: str, nonce: bool) -> tuple[list[httpx2.Request], TokenThenCall]:
    """Run the wrapped flow against scripted answers (nonce: both servers ask for one first); the requests
    sent, copied as they were sent."""
    inner = TokenThenCall()
    flow = DPoPAuth(inner, DPoPKey.generate()).async_auth_flow(httpx2.Request("POST", URL))
    sent: list[httpx2.Request] = []
    outgoing = await flow.__anext__()
    try:
        while True:
            sent.append(httpx2.Request(outgoing.method, outgoing.url, headers=dict(outgoing.headers)))
            proof = outgoing.headers.get("DPoP", "")
            given = verified(proof)[1].get("nonce") if proof else None
            if str(outgoing.url) == TOKEN_URL:
                if nonce and given != "as-1":
                    answer = reply(outgoing, 400, {"error": "use_dpop_nonce"}, **{"DPoP-Nonce": "as-1"})
                else:
                    answer = reply(outgoing, 200, {"access_token": "at-1", "token_type": token_type})
            elif nonce and given != "rs-1" and proof:
                challenge = 'DPoP error="use_dpop_nonce"'
                answer = reply(outgoing, 401, {}, **{"WWW-Authenticate": challenge, "DPoP-Nonce": "rs-1"})
            else:
                answer = reply(outgoing, 200, {})
            outgoing = await flow.asend(answer)
    except StopAsyncIteration:
        return sent, inner


async def test_the_token_request_and_the_call_carry_proofs_and_the_dpop_scheme() -> None:
    sent, inner = await drive("DPoP", nonce=False)
    token, call = sent
    assert verified(token.headers["DPoP"])[1]["htu"] == TOKEN_URL
    assert inner.token_answer["token_type"] == "Bearer"  # the SDK reads only that type
    assert call.headers["Authorization"] == "DPoP at-1"
    assert verified(call.headers["DPoP"])[1]["ath"] == access_token_hash("at-1")


async def test_each_server_nonce_is_answered_once_with_a_fresh_proof() -> None:
    sent, _ = await drive("DPoP", nonce=True)
    assert [str(request.url) for request in sent] == [TOKEN_URL, TOKEN_URL, URL, URL]
    claims = [verified(request.headers["DPoP"])[1] for request in sent]
    assert [claim.get("nonce") for claim in claims] == [None, "as-1", None, "rs-1"]
    assert len({claim["jti"] for claim in claims}) == 4


async def test_a_token_issued_as_bearer_is_sent_as_bearer() -> None:
    sent, _ = await drive("Bearer", nonce=False)
    call = sent[-1]
    assert call.headers["Authorization"] == "Bearer at-1" and "DPoP" not in call.headers


class MetadataThenToken(httpx2.Auth):
    """An SDK-like flow that reads authorization server metadata before its token request."""

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        yield httpx2.Request("GET", "http://127.0.0.1:8/.well-known/oauth-authorization-server")
        yield httpx2.Request("POST", TOKEN_URL, data={"grant_type": "client_credentials"})


async def test_a_key_the_authorization_server_does_not_accept_is_named() -> None:
    flow = DPoPAuth(MetadataThenToken(), DPoPKey.generate()).async_auth_flow(httpx2.Request("POST", URL))
    metadata = await flow.__anext__()
    listed = {"token_endpoint": TOKEN_URL, "dpop_signing_alg_values_supported": ["RS256", "PS256"]}
    with pytest.raises(DPoPKeyError, match=r"accepts DPoP proofs signed with RS256, PS256, not ES256"):
        await flow.asend(reply(metadata, 200, listed))
