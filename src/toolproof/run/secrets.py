"""The secrets of a run: what every report, cassette and saved trace masks, as the values that are really
sent, after `${VAR}` expansion.

They are the values of this process's variables named like secrets; a server's env values named like
secrets and its secret-looking header values (with the credentials after a scheme such as `Bearer`), both as
expanded; the values of the variables its `url` refers to; and its OAuth client secret, private key (each
line of a PEM key too), workload assertion, ID token and identity provider secret. Tokens are masked as
they are issued (`toolproof.mcp.auth`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from toolproof.core.sanitize import maskable, secret_values
from toolproof.core.template import env_references, expand_env
from toolproof.model.server_config import ServerConfig


def server_secrets(server: ServerConfig, environ: Mapping[str, str]) -> set[str]:
    """The secrets `server`'s settings hold once expanded from `environ`."""
    env = {name: expand_env(value, environ) for name, value in server.env.items()}
    headers = {name: expand_env(value, environ) for name, value in server.headers.items()}
    in_url = {environ.get(name, "") for name in env_references(server.url)}
    auth = server.auth
    given: tuple[str, ...] = ()
    if auth:
        given = (auth.client_secret, auth.private_key, auth.assertion, auth.id_token, auth.idp_client_secret)
    in_auth = {expand_env(value, environ) for value in given}
    in_url |= in_auth | {line for value in in_auth for line in value.splitlines()}
    return secret_values(env, headers) | {value for value in in_url if maskable(value)}


def run_secrets(servers: Iterable[ServerConfig], environ: Mapping[str, str]) -> set[str]:
    """The secrets of a run over `servers`: the environment's own, and every server's."""
    found = secret_values(environ, {})
    for server in servers:
        found |= server_secrets(server, environ)
    return found
