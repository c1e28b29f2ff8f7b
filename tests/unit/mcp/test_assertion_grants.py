"""The jwt_bearer and enterprise grants' pieces that need no server: where the tokens come from, what a
block must give, how the identity provider's answer is read, and the options that write the block."""

from __future__ import annotations

import argparse
from pathlib import Path

import httpx2
import pytest
from mcp.client.auth import OAuthFlowError, OAuthTokenError
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider

from toolproof.cli.auth_options import add_auth_options, auth_from_args
from toolproof.core.sanitize import mask
from toolproof.mcp.assertion_grants import (
    ID_JAG_TYPE,
    JwtBearerOAuthProvider,
    _issued_id_jag,
    read_credential,
)
from toolproof.mcp.auth import oauth_provider
from toolproof.mcp.dpop import DPoPAuth
from toolproof.mcp.errors import classify
from toolproof.model.server_config import AuthConfig

URL = "http://127.0.0.1:9/mcp"
IDP = "http://127.0.0.1:9/idp/token"
BEARER = AuthConfig(grant="jwt_bearer", client_id="w", assertion="t")
ENTERPRISE = AuthConfig(grant="enterprise", client_id="c", client_secret="s", id_token="t")


def test_a_token_file_is_read_at_each_use_and_masked(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text("workload-token-first-1\n", encoding="utf-8")
    read = read_credential("", str(path), "assertion")
    assert read() == "workload-token-first-1"
    path.write_text("workload-token-rotated-2\n", encoding="utf-8")
    assert read() == "workload-token-rotated-2"
    assert "workload-token-rotated-2" not in mask("sent workload-token-rotated-2", [])


@pytest.mark.parametrize(
    ("value", "file", "message"),
    [
        ("", "", "assertion needs its token: set `assertion` or `assertion_file`"),
        ("", "missing", "cannot read assertion_file .*missing"),
        ("", "empty", "assertion_file .*empty is empty"),
    ],
)
def test_a_missing_token_is_named(value: str, file: str, message: str, tmp_path: Path) -> None:
    (tmp_path / "empty").write_text("\n", encoding="utf-8")
    with pytest.raises(OAuthFlowError, match=message):
        read_credential(value, str(tmp_path / file) if file else "", "assertion")()


def test_the_grant_picks_its_provider(tmp_path: Path) -> None:
    bearer = AuthConfig(grant="jwt_bearer", client_id="w", assertion="tok")
    assert isinstance(oauth_provider(bearer, URL, tmp_path), JwtBearerOAuthProvider)
    enterprise = ENTERPRISE.model_copy(update={"issuer": "http://127.0.0.1:9", "idp_token_endpoint": IDP})
    assert isinstance(oauth_provider(enterprise, URL, tmp_path), IdentityAssertionOAuthProvider)
    wrapped = oauth_provider(enterprise.model_copy(update={"dpop": True}), URL, tmp_path)
    assert isinstance(wrapped, DPoPAuth) and isinstance(wrapped.inner, IdentityAssertionOAuthProvider)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (AuthConfig(grant="jwt_bearer", assertion="t"), "jwt_bearer grant needs a client_id"),
        (AuthConfig(grant="jwt_bearer", client_id="w"), "set `assertion` or `assertion_file`"),
        (
            BEARER.model_copy(update={"token_endpoint_auth_method": "private_key_jwt"}),
            "cannot authenticate with private_key_jwt",
        ),
        (ENTERPRISE.model_copy(update={"client_secret": ""}), "needs a client_id and a client_secret"),
        (
            ENTERPRISE.model_copy(update={"idp_token_endpoint": IDP}),
            "needs the authorization server's issuer",
        ),
        (ENTERPRISE.model_copy(update={"issuer": "http://a"}), "needs idp_token_endpoint"),
    ],
)
def test_an_incomplete_block_is_an_oauth_error(config: AuthConfig, message: str, tmp_path: Path) -> None:
    with pytest.raises(OAuthFlowError, match=message):
        oauth_provider(config, URL, tmp_path)


def answer(status: int, body: object) -> httpx2.Response:
    return httpx2.Response(status, json=body, request=httpx2.Request("POST", IDP))


def test_the_id_jag_is_taken_from_the_exchange_and_masked() -> None:
    issued = answer(200, {"access_token": "id-jag-value-7731", "issued_token_type": ID_JAG_TYPE})
    assert _issued_id_jag(issued, IDP) == "id-jag-value-7731"
    assert mask("id-jag-value-7731", []) == "***"


@pytest.mark.parametrize(
    ("response", "message"),
    [
        (answer(400, {"error": "invalid_grant"}), "token exchange at .* said 400: .*invalid_grant"),
        (answer(200, {"token_type": "N_A"}), "issued no token"),
        (
            answer(200, {"access_token": "x", "issued_token_type": "urn:ietf:params:oauth:token-type:jwt"}),
            "not an ID-JAG",
        ),
    ],
)
def test_a_failed_exchange_is_a_token_error(response: httpx2.Response, message: str) -> None:
    with pytest.raises(OAuthTokenError, match=message):
        _issued_id_jag(response, IDP)


def parsed(*argv: str) -> AuthConfig | None:
    parser = argparse.ArgumentParser()
    add_auth_options(parser)
    return auth_from_args(parser.parse_args(list(argv)))


def test_dpop_alone_turns_oauth_on() -> None:
    alone = parsed("--oauth-dpop")
    assert alone is not None and (alone.grant, alone.dpop) == ("authorization_code", True)
    assert parsed() is None


def test_the_options_write_the_new_grants() -> None:
    bearer = parsed("--oauth-client-id", "w", "--oauth-assertion-env", "WIF_TOKEN", "--oauth-dpop")
    assert bearer is not None
    assert (bearer.grant, bearer.assertion, bearer.dpop) == ("jwt_bearer", "${WIF_TOKEN}", True)
    from_file = parsed("--oauth-client-id", "w", "--oauth-assertion-file", "/run/token")
    assert from_file is not None
    assert (from_file.grant, from_file.assertion_file) == ("jwt_bearer", "/run/token")
    enterprise = parsed(
        "--oauth-client-id",
        "c",
        "--oauth-client-secret-env",
        "SECRET",
        "--oauth-issuer",
        "https://as.example",
        "--oauth-id-token-file",
        "id.jwt",
        "--oauth-idp-token-endpoint",
        "https://idp.example/token",
        "--oauth-idp-client-id",
        "idp-c",
        "--oauth-dpop-key-file",
        "k.jwk",
    )
    assert enterprise is not None
    assert enterprise.grant == "enterprise" and enterprise.issuer == "https://as.example"
    assert (enterprise.id_token_file, enterprise.idp_client_id) == ("id.jwt", "idp-c")
    assert enterprise.dpop_key == "k.jwk"


def test_an_issuer_mismatch_says_which_value_is_which() -> None:
    error = OAuthFlowError("Authorization server metadata issuer mismatch: http://h/oauth != http://h")
    message = classify(error, during="initialize").message
    assert "issuer mismatch: http://h/oauth != http://h" in message
    assert "fetched for the authorization server http://h gives its issuer as http://h/oauth" in message
