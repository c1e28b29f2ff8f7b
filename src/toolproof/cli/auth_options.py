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
        choices=("client_credentials", "authorization_code"),
        help="default: client_credentials with a secret or key, else authorization_code",
    )
    group.add_argument("--oauth-scope", action="append", default=[], metavar="SCOPE", help="may repeat")
    group.add_argument(
        "--oauth-browser", action="store_true", help="approve the authorization code grant in the browser"
    )


def auth_from_args(args: argparse.Namespace) -> AuthConfig | None:
    """The `auth:` block the options describe (None when none is given); OSError for an unreadable key."""
    if not (args.oauth_client_id or args.oauth_grant or args.oauth_browser):
        return None
    from toolproof.model.server_config import AuthConfig

    key = args.oauth_private_key_file.read_text(encoding="utf-8") if args.oauth_private_key_file else ""
    secret = f"${{{args.oauth_client_secret_env}}}" if args.oauth_client_secret_env else ""
    grant = args.oauth_grant or ("client_credentials" if secret or key else "authorization_code")
    return AuthConfig(
        grant=grant,
        client_id=args.oauth_client_id or "",
        client_secret=secret,
        private_key=key,
        scopes=args.oauth_scope,
        browser=args.oauth_browser,
    )
