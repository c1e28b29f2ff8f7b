"""Lets the official conformance suite drive toolproof as its client.

`conformance client --command "python tests/conformance/client_adapter.py [--protocol auto]" --scenario NAME`
starts a test server and runs this script with its URL as the last argument, the scenario's name in
MCP_CONFORMANCE_SCENARIO and, for the scenarios that need them, a JSON context in MCP_CONFORMANCE_CONTEXT:
the tool calls to make, or credentials (a client secret, a private key, a workload token or an enterprise ID
token, each passed on in a variable). The script writes the suite a user would write for that server (with an
`auth:` block whose secrets come from `${VAR}`s) into a scratch directory and runs `toolproof run` on it from
there (with the `--protocol` it was given), so the OAuth token cache lands in that directory. Its exit status
is toolproof's.
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
AUTH_TOOL = "test-tool"
# The focal tool's inputSchema in json-schema-2020-12-preservation, as its tools/list shows it (the same file
# gives tests/servers/reference_server.py its schema): the user pastes it into the case that echoes it back.
SCHEMA_FILE = Path(__file__).parents[1] / "data" / "json-schema-2020-12.json"
RICH_SCHEMA: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
# http-invalid-tool-headers lists one valid tool and these, each with an invalid x-mcp-header declaration.
INVALID_HEADER_TOOLS: dict[str, dict[str, Any]] = {
    "invalid_empty_header": {"value": "v"},
    "invalid_object_header": {"data": {"k": "v"}},
    "invalid_array_header": {"items": ["a"]},
    "invalid_null_header": {"nil": None},
    "invalid_number_header": {"score": 1.5},
    "invalid_duplicate_same_case": {"field1": "a", "field2": "b"},
    "invalid_duplicate_diff_case": {"field1": "a", "field2": "b"},
    "invalid_space_in_name": {"value": "v"},
    "invalid_colon_in_name": {"value": "v"},
    "invalid_non_ascii_name": {"value": "v"},
    "invalid_control_char_name": {"value": "v"},
}
TOOL_CALLS: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "tools_call": [("add_numbers", {"a": 5, "b": 3})],
    "elicitation-sep1034-client-defaults": [("test_client_elicitation_defaults", {})],
    "sse-retry": [("test_reconnection", {})],
    "sep-2322-client-request-state": [
        ("test_mrtr_echo_state", {}),
        ("test_mrtr_no_state", {}),
        ("test_mrtr_unrelated", {}),
        ("test_mrtr_no_result_type", {}),
    ],
    "http-standard-headers": [("test_headers", {}), ("my-hyphenated-tool", {})],
    "http-invalid-tool-headers": [("valid_tool", {"region": "us-west1"}), *INVALID_HEADER_TOOLS.items()],
    "json-schema-2020-12-preservation": [("json_schema_echo", {"schema": RICH_SCHEMA})],
}
ELICITING = {"elicitation-sep1034-client-defaults": {}, "sep-2322-client-request-state": {"confirmed": True}}
RESOURCE_READS = {"http-standard-headers": ["file:///path/to/file%20name.txt", "https://example.com/resource?id=123"]}
PROMPT_GETS = {"http-standard-headers": ["test_prompt"]}
# The skills scenarios: list the skills (and load none), or load the listed skill, every file verified.
SKILLS = {
    "sep-2640-client-no-prefetch": {"list": {}},
    "sep-2640-client-verify-digest": {"load": "pdf-processing"},
    "sep-2640-client-verify-size": {"load": "pdf-processing"},
    "sep-2640-client-verify-frontmatter": {"load": "pdf-processing"},
}


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


def tool_calls(scenario: str, context: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The tools the suite calls: those the scenario's context names, else this scenario's own."""
    if "toolCalls" in context:
        return [(call["name"], call.get("arguments") or {}) for call in context["toolCalls"]]
    if scenario.startswith("auth/"):
        return [(AUTH_TOOL, {})]
    return TOOL_CALLS.get(scenario, [])


def cases(scenario: str, url: str, context: dict[str, Any]) -> list[dict[str, Any]]:
    """The suite's cases: list the tools, then call each of the scenario's tools, read its resources, get
    its prompts and list or load its skills."""
    server: dict[str, Any] = {"transport": "http", "url": url}
    if scenario.startswith("auth/"):
        server["auth"] = auth_block(scenario, url, context)
    if scenario in ELICITING:
        server["client_capabilities"] = {"elicitation": {"action": "accept", "content": ELICITING[scenario]}}
    blocks: list[tuple[str, str, dict[str, Any]]] = [("tools/list", "assert_tools", {})]
    blocks += [(tool, "assert", {"tool": tool, "args": args}) for tool, args in tool_calls(scenario, context)]
    if scenario in RESOURCE_READS:
        blocks.append(("resources/list", "assert_resources", {"list": {}}))
        blocks += [(uri, "assert_resources", {"read": uri}) for uri in RESOURCE_READS[scenario]]
    if scenario in PROMPT_GETS:
        blocks.append(("prompts/list", "assert_prompts", {"list": {}}))
        blocks += [(name, "assert_prompts", {"get": {"name": name}}) for name in PROMPT_GETS[scenario]]
    if scenario in SKILLS:
        blocks.append(("skills", "assert_skills", SKILLS[scenario]))
    return [{"name": f"{scenario}: {what}", "server": server, kind: block} for what, kind, block in blocks]


def main() -> int:
    url = sys.argv[-1]
    protocol = sys.argv[sys.argv.index("--protocol") + 1] if "--protocol" in sys.argv[:-1] else "2025-11-25"
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
        return main_command(["run", "--jobs", "1", "--protocol", protocol, str(suite)])


if __name__ == "__main__":
    sys.exit(main())
