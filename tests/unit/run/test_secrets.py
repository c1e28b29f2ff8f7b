"""The secrets of a run include every credential an `auth:` block names, as expanded."""

from __future__ import annotations

from toolproof.model.server_config import AuthConfig, ServerConfig, Transport
from toolproof.run.secrets import server_secrets


def test_the_auth_blocks_credentials_are_secrets() -> None:
    auth = AuthConfig(
        grant="enterprise",
        client_secret="${SECRET}",
        assertion="${WORKLOAD}",
        id_token="${ID_TOKEN}",
        idp_client_secret="${IDP_SECRET}",
    )
    server = ServerConfig(transport=Transport.HTTP, url="http://127.0.0.1:9/mcp", auth=auth)
    environ = {
        "SECRET": "client-secret-1a2b",
        "WORKLOAD": "workload-token-3c4d",
        "ID_TOKEN": "id-token-value-5e6f",
        "IDP_SECRET": "idp-secret-7a8b",
    }
    assert set(environ.values()) <= server_secrets(server, environ)
