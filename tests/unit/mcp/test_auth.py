"""The OAuth pieces that need no server: the token cache, the choice of flow, the options, the masking."""

from __future__ import annotations

import argparse
import json
import stat
import time
from pathlib import Path

import pytest
from mcp.client.auth import OAuthFlowError
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from toolproof.cli.auth_options import add_auth_options, auth_from_args
from toolproof.core.sanitize import Scrubber, mask
from toolproof.mcp.auth import EXPIRY_MARGIN_S, TokenCache, cache_path, oauth_provider
from toolproof.model.server_config import AuthConfig
from toolproof.sources.connect import expand_auth

URL = "http://127.0.0.1:9/mcp"


async def test_tokens_are_kept_owner_only_and_reused_until_they_expire(tmp_path: Path) -> None:
    path = tmp_path / ".toolproof" / "oauth" / "t.json"
    await TokenCache(path).set_tokens(OAuthToken(access_token="tok-fresh-1", expires_in=3600))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert (tmp_path / ".toolproof" / ".gitignore").read_text() == "# created by toolproof\n*\n"
    again = await TokenCache(path).get_tokens()
    assert again is not None and again.access_token == "tok-fresh-1"
    await TokenCache(path).set_tokens(
        OAuthToken(access_token="tok-nearly-gone", expires_in=int(EXPIRY_MARGIN_S) - 1)
    )
    assert await TokenCache(path).get_tokens() is None


async def test_an_expired_token_with_a_refresh_token_is_kept_for_renewal(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    await TokenCache(path).set_tokens(
        OAuthToken(access_token="tok-old-1", expires_in=1, refresh_token="ref-old-1")
    )
    cache = TokenCache(path)
    kept = await cache.get_tokens()
    assert kept is not None and kept.refresh_token == "ref-old-1"
    assert cache.expires_at is not None and cache.expires_at < time.time()


async def test_a_token_without_a_lifetime_is_reused(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    await TokenCache(path).set_tokens(OAuthToken(access_token="tok-forever"))
    assert json.loads(path.read_text())["expires_at"] is None
    assert (await TokenCache(path).get_tokens()) is not None


async def test_a_damaged_cache_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text("{not json")
    cache = TokenCache(path)
    assert await cache.get_tokens() is None and await cache.get_client_info() is None


async def test_a_registered_client_is_remembered(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    client = OAuthClientInformationFull(client_id="dyn-1", client_secret="dyn-secret-1", redirect_uris=None)
    await TokenCache(path).set_client_info(client)
    stored = await TokenCache(path).get_client_info()
    assert stored is not None and stored.client_id == "dyn-1"


async def test_issued_tokens_and_secrets_are_masked_everywhere_from_then_on(tmp_path: Path) -> None:
    scrub = Scrubber([])
    assert scrub("token tok-learned-77 here") == "token tok-learned-77 here"
    await TokenCache(None).set_tokens(
        OAuthToken(access_token="tok-learned-77", refresh_token="ref-learned-88")
    )
    assert scrub("token tok-learned-77 here, ref-learned-88") == "token *** here, ***"
    assert mask({"k": "tok-learned-77"}, []) == {"k": "***"}


def test_the_cache_file_depends_on_server_client_and_grant(tmp_path: Path) -> None:
    one = AuthConfig(client_id="a", client_secret="s")
    paths = {
        cache_path(tmp_path, URL, one),
        cache_path(tmp_path, URL + "2", one),
        cache_path(tmp_path, URL, one.model_copy(update={"client_id": "b"})),
        cache_path(tmp_path, URL, one.model_copy(update={"grant": "authorization_code"})),
    }
    assert len(paths) == 4
    assert cache_path(None, URL, one) is None


def test_the_flow_follows_the_auth_block(tmp_path: Path) -> None:
    secret = oauth_provider(AuthConfig(client_id="c", client_secret="s3cret-x"), URL, tmp_path)
    assert isinstance(secret, ClientCredentialsOAuthProvider)
    keyed = oauth_provider(AuthConfig(client_id="c", private_key="-----BEGIN KEY-----"), URL, tmp_path)
    assert isinstance(keyed, PrivateKeyJWTOAuthProvider)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (AuthConfig(client_secret="s"), "needs a client_id"),
        (AuthConfig(client_id="c"), "needs a client_secret or a private_key"),
        (AuthConfig(client_id="c", token_endpoint_auth_method="private_key_jwt"), "needs a private_key"),
        (
            AuthConfig(client_id="c", client_secret="s", token_endpoint_auth_method="none"),
            "cannot authenticate",
        ),
    ],
)
def test_an_incomplete_block_is_an_oauth_error(config: AuthConfig, message: str, tmp_path: Path) -> None:
    with pytest.raises(OAuthFlowError, match=message):
        oauth_provider(config, URL, tmp_path)


def test_variables_are_expanded_in_the_block() -> None:
    config = AuthConfig(client_id="${ID}", client_secret="${SECRET}", scopes=["${SCOPE}", "b"])
    expanded = expand_auth(config, {"ID": "me", "SECRET": "pw-123", "SCOPE": "a"})
    assert (expanded.client_id, expanded.client_secret, expanded.scopes) == ("me", "pw-123", ["a", "b"])


def test_the_options_name_the_secret_by_its_variable(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    add_auth_options(parser)
    assert auth_from_args(parser.parse_args([])) is None
    args = parser.parse_args(["--oauth-client-id", "ci", "--oauth-client-secret-env", "CI_SECRET"])
    config = auth_from_args(args)
    assert config == AuthConfig(client_id="ci", client_secret="${CI_SECRET}")
    key = tmp_path / "key.pem"
    key.write_text("PEM")
    keyed = auth_from_args(
        parser.parse_args(["--oauth-client-id", "ci", "--oauth-private-key-file", str(key)])
    )
    assert keyed is not None and (keyed.grant, keyed.private_key) == ("client_credentials", "PEM")
    browser = auth_from_args(parser.parse_args(["--oauth-browser"]))
    assert browser is not None and (browser.grant, browser.browser) == ("authorization_code", True)
