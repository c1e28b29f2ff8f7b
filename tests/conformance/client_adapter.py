"""Lets the official conformance suite drive toolproof as its client.

`conformance client --command "python tests/conformance/client_adapter.py" --scenario NAME` starts a test
server and runs this script with its URL as the last argument, the scenario's name in
MCP_CONFORMANCE_SCENARIO and, for the auth scenarios that need credentials, a JSON context in
MCP_CONFORMANCE_CONTEXT (a client secret, a private key, a workload token or an enterprise ID token, each
passed on in a variable). The script writes the suite a user would write for that server (with an `auth:`
block whose secrets come from `${VAR}`s) into a scratch directory and runs `toolproof run` on it from there,
so the OAuth token cache lands in that directory. Its exit status is toolproof's.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from toolproof.cli import main as main_command

CIMD_URL = "https://conformance-test.local/client-metadata.json"
TOOL_CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "tools_call": ("add_numbers", {"a": 5, "b": 3}),
    "elicitation-sep1034-client-defaults": ("test_client_elicitation_defaults", {}),
    "sse-retry": ("test_reconnection", {}),
}
AUTH_TOOL = "test-tool"


def auth_block(scenario: str, url: str, context: dict[str, Any]) -> dict[str, Any]:
    """The `auth:` block a user would write for this scenario; secrets are referenced, never inlined."""
    block = grant_block(scenario, url, context)
    if "dpop" in scenario:
        block["dpop"] = True
    return block


def grant_block(scenario: str, url: str, context: dict[str, Any]) -> dict[str, Any]:
    """The grant and the credentials it needs."""
    if "idp_id_token" in context:  # enterprise-managed: the ID token is exchanged at the IdP for an ID-JAG
        return {
            "grant": "enterprise",
            "issuer": authorization_server(url),
            "client_id": context["client_id"],
            "client_secret": "${CONFORMANCE_SECRET}",
            "id_token": "${CONFORMANCE_ID_TOKEN}",
            "idp_token_endpoint": context["idp_token_endpoint"],
            "idp_client_id": context["idp_client_id"],
        }
    if "valid_jwt" in context:  # workload identity federation
        assertion = "${CONFORMANCE_ASSERTION}"
        return {"grant": "jwt_bearer", "client_id": context["client_id"], "assertion": assertion}
    if "private_key_pem" in context:
        return {
            "grant": "client_credentials",
            "client_id": context["client_id"],
            "private_key": "${CONFORMANCE_PRIVATE_KEY}",
            "signing_algorithm": context.get("signing_algorithm", "RS256"),
        }
    if scenario.startswith("auth/client-credentials"):
        grant = "client_credentials"
    elif "client_id" in context:  # pre-registered
        grant = "authorization_code"
    else:
        return {"grant": "authorization_code", "client_metadata_url": CIMD_URL}
    return {"grant": grant, "client_id": context["client_id"], "client_secret": "${CONFORMANCE_SECRET}"}


def authorization_server(url: str) -> str:
    """The issuer the server's protected resource metadata names: what an enterprise user is told (the
    enterprise grant takes its authorization server from configuration, never from the server)."""
    parts = urlsplit(url)
    metadata = f"{parts.scheme}://{parts.netloc}/.well-known/oauth-protected-resource{parts.path}"
    with urllib.request.urlopen(metadata, timeout=10) as response:
        return str(json.load(response)["authorization_servers"][0])


def cases(scenario: str, url: str, context: dict[str, Any]) -> list[dict[str, Any]]:
    """The suite's cases: list the tools, then call the scenario's tool (if it has one)."""
    server: dict[str, Any] = {"transport": "http", "url": url}
    if scenario.startswith("auth/"):
        server["auth"] = auth_block(scenario, url, context)
    if scenario == "elicitation-sep1034-client-defaults":
        server["client_capabilities"] = {"elicitation": {"action": "accept", "content": {}}}
    listing = {"name": f"{scenario}: tools/list", "server": server, "assert_tools": {}}
    if scenario.startswith("auth/"):
        tool, arguments = AUTH_TOOL, dict[str, Any]()
    elif scenario in TOOL_CALLS:
        tool, arguments = TOOL_CALLS[scenario]
    else:
        return [listing]
    call = {"name": f"{scenario}: {tool}", "server": server, "assert": {"tool": tool, "args": arguments}}
    return [listing, call]


def main() -> int:
    url = sys.argv[-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    if "client_secret" in context:
        os.environ["CONFORMANCE_SECRET"] = context["client_secret"]
    if "private_key_pem" in context:
        os.environ["CONFORMANCE_PRIVATE_KEY"] = context["private_key_pem"]
    if "valid_jwt" in context:
        os.environ["CONFORMANCE_ASSERTION"] = context["valid_jwt"]
    if "idp_id_token" in context:
        os.environ["CONFORMANCE_ID_TOKEN"] = context["idp_id_token"]
    with tempfile.TemporaryDirectory(prefix="toolproof-conformance-") as scratch:
        suite = Path(scratch) / "suite.yaml"
        documents = "\n---\n".join(json.dumps(case) for case in cases(scenario, url, context))  # JSON is YAML
        suite.write_text(documents + "\n", encoding="utf-8")
        os.chdir(scratch)
        return main_command(["run", "--jobs", "1", str(suite)])


if __name__ == "__main__":
    sys.exit(main())
