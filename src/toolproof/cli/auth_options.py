"""The OAuth options of the commands that reach servers over HTTP; secrets are named, never given inline."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolproof.model.server_config import AuthConfig


def add_auth_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "OAuth", "for http/sse servers without an `auth:` block (tokens are cached under .toolproof/)"
    )
    group.add_argument("--oauth-client-id", metavar="ID", help="the OAuth client id (turns OAuth on)")
    group.add_argument(
        "--oauth-client-secret-env",
        metavar="VAR",
        help="the environment variable that holds the client secret",
    )
    group.add_argument(
        "--oauth-private-key-file", type=Path, metavar="PEM", help="sign the token request with this key"
    )
    group.add_argument(
        "--oauth-grant",
        choices=("client_credentials", "authorization_code", "jwt_bearer", "enterprise"),
        help="default: jwt_bearer with an assertion, enterprise with an ID token, client_credentials with a "
        "secret or key, else authorization_code",
    )
    group.add_argument("--oauth-issuer", metavar="URL", help="the authorization server's issuer")
    group.add_argument(
        "--oauth-assertion-env", metavar="VAR", help="jwt_bearer: the variable that holds the workload token"
    )
    group.add_argument(
        "--oauth-assertion-file", metavar="PATH", help="jwt_bearer: the file that holds the workload token"
    )
    group.add_argument("--oauth-id-token-env", metavar="VAR", help="enterprise: the ID token's variable")
    group.add_argument("--oauth-id-token-file", metavar="PATH", help="enterprise: the file with the ID token")
    group.add_argument(
        "--oauth-idp-token-endpoint", metavar="URL", help="enterprise: the identity provider's token endpoint"
    )
    group.add_argument("--oauth-idp-client-id", metavar="ID", help="enterprise: the client id at the IdP")
    group.add_argument(
        "--oauth-dpop", action="store_true", help="bind tokens to a DPoP key (ES256, made for this run)"
    )
    group.add_argument(
        "--oauth-dpop-key-file", metavar="PATH", help="bind tokens to this DPoP key (a private JWK or PEM)"
    )
    group.add_argument("--oauth-scope", action="append", default=[], metavar="SCOPE", help="may repeat")
    group.add_argument(
        "--oauth-browser", action="store_true", help="approve the authorization code grant in the browser"
    )


_TURNS_OAUTH_ON = (
    "oauth_client_id",
    "oauth_grant",
    "oauth_browser",
    "oauth_dpop",
    "oauth_dpop_key_file",
    "oauth_assertion_env",
    "oauth_assertion_file",
    "oauth_id_token_env",
    "oauth_id_token_file",
)


def auth_from_args(args: argparse.Namespace) -> AuthConfig | None:
    """The `auth:` block the options describe (None when none is given); OSError for an unreadable key."""
    if not any(getattr(args, name) for name in _TURNS_OAUTH_ON):
        return None
    from toolproof.model.server_config import AuthConfig

    key = args.oauth_private_key_file.read_text(encoding="utf-8") if args.oauth_private_key_file else ""
    secret = _variable(args.oauth_client_secret_env)
    assertion = _variable(args.oauth_assertion_env)
    id_token = _variable(args.oauth_id_token_env)
    grant = args.oauth_grant or (
        "jwt_bearer"
        if assertion or args.oauth_assertion_file
        else "enterprise"
        if id_token or args.oauth_id_token_file
        else "client_credentials"
        if secret or key
        else "authorization_code"
    )
    return AuthConfig(
        grant=grant,
        client_id=args.oauth_client_id or "",
        client_secret=secret,
        private_key=key,
        scopes=args.oauth_scope,
        browser=args.oauth_browser,
        issuer=args.oauth_issuer or "",
        assertion=assertion,
        assertion_file=args.oauth_assertion_file or "",
        id_token=id_token,
        id_token_file=args.oauth_id_token_file or "",
        idp_token_endpoint=args.oauth_idp_token_endpoint or "",
        idp_client_id=args.oauth_idp_client_id or "",
        dpop=args.oauth_dpop,
        dpop_key=args.oauth_dpop_key_file or "",
    )


def _variable(name: str | None) -> str:
    """A reference to the variable `name` (secrets are named, never given inline)."""
    return f"${{{name}}}" if name else ""
