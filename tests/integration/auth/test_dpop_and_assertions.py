"""DPoP and the jwt-bearer grant against tests/servers/oauth_server.py (the SDK's auth server side, with
oauth_dpop.py checking proofs in front): `toolproof run` from a fresh directory, secrets in the
environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from joserfc.jwk import ECKey
from tests.integration.mcp.helpers import ROOT, listening

SERVER = ROOT / "tests" / "servers" / "oauth_server.py"
CLIENT_ID = "ci-client"
SECRET = "s3cret-for-ci-7d41"
WORKLOAD = "workload-token-5c0ffee-91d2"
SERVER_ENV = {
    **os.environ,
    "OAUTH_CLIENT_ID": CLIENT_ID,
    "OAUTH_CLIENT_SECRET": SECRET,
    "OAUTH_WORKLOAD_TOKEN": WORKLOAD,
}
CI_ENV = {"PATH": os.environ["PATH"], "MCP_CLIENT_SECRET": SECRET, "WORKLOAD_TOKEN": WORKLOAD}
CLIENT_CREDENTIALS = {
    "grant": "client_credentials",
    "client_id": CLIENT_ID,
    "client_secret": "${MCP_CLIENT_SECRET}",
}

pytestmark = pytest.mark.servers


def serve(*flags: str) -> Iterator[str]:
    with listening([sys.executable, str(SERVER), *flags], SERVER_ENV) as port:
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.fixture(scope="module")
def dpop_url() -> Iterator[str]:
    yield from serve("--dpop", "on")


@pytest.fixture(scope="module")
def nonce_url() -> Iterator[str]:
    yield from serve("--dpop", "nonce")


@pytest.fixture
def plain_url() -> Iterator[str]:
    yield from serve()


def case(name: str, url: str, auth: dict[str, object], tool: str, expect: dict[str, object]) -> str:
    server = {"transport": "http", "url": url, "auth": auth}
    return json.dumps({"name": name, "server": server, "assert": {"tool": tool, "expect": expect}})


def run(workdir: Path, *cases: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    (workdir / "suite.yaml").write_text("\n---\n".join(cases) + "\n", encoding="utf-8")
    command = [sys.executable, "-m", "toolproof", "run", "-j", "1", "suite.yaml", "--json", "report.json"]
    return subprocess.run(
        command, cwd=workdir, env=env or CI_ENV, capture_output=True, text=True, timeout=120, check=False
    )


def test_a_dpop_bound_token_is_presented_with_proofs(dpop_url: str, tmp_path: Path) -> None:
    key = ECKey.generate_key("P-256")
    (tmp_path / "dpop.jwk").write_text(json.dumps(key.as_dict(private=True)), encoding="utf-8")
    auth = {**CLIENT_CREDENTIALS, "dpop_key": "dpop.jwk"}
    done = run(
        tmp_path,
        case("bound to the given key", dpop_url, auth, "dpop_key", {"equals": key.thumbprint()}),
        case("and the client is who it says", dpop_url, auth, "whoami", {"equals": "ci-client notes"}),
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_key_made_for_the_run_answers_nonces_at_both_servers(nonce_url: str, tmp_path: Path) -> None:
    auth = {**CLIENT_CREDENTIALS, "dpop": True}
    done = run(tmp_path, case("bound", nonce_url, auth, "dpop_key", {"matches_regex": "^[A-Za-z0-9_-]{43}$"}))
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (tmp_path / ".toolproof" / "oauth").exists()  # a token bound to a run's key is not kept


def test_without_dpop_the_token_is_a_bearer_token(dpop_url: str, tmp_path: Path) -> None:
    done = run(tmp_path, case("bearer", dpop_url, CLIENT_CREDENTIALS, "dpop_key", {"equals": ""}))
    assert done.returncode == 0, done.stdout + done.stderr


def test_an_unreadable_dpop_key_is_named(dpop_url: str, tmp_path: Path) -> None:
    (tmp_path / "public.jwk").write_text(json.dumps(ECKey.generate_key("P-256").as_dict(private=False)))
    auth = {**CLIENT_CREDENTIALS, "dpop_key": "public.jwk"}
    done = run(tmp_path, case("public key", dpop_url, auth, "whoami", {"equals": "ci-client notes"}))
    assert done.returncode == 1
    assert "public.jwk: a DPoP key must be a private key" in done.stdout


def test_jwt_bearer_presents_the_workload_token_once(plain_url: str, tmp_path: Path) -> None:
    good = {"grant": "jwt_bearer", "client_id": "workload", "assertion": "${WORKLOAD_TOKEN}"}
    (tmp_path / "stale-token").write_text("an-expired-workload-token\n", encoding="utf-8")
    stale = {"grant": "jwt_bearer", "client_id": "stale-workload", "assertion_file": "stale-token"}
    done = run(
        tmp_path,
        case("refused", plain_url, stale, "whoami", {"equals": "never"}),
        case("not sent again", plain_url, stale, "whoami", {"equals": "never"}),
        case("accepted", plain_url, good, "whoami", {"equals": "workload notes"}),
        case("one request each, no retry", plain_url, good, "jwt_bearer_requests", {"equals": "2"}),
    )
    assert done.returncode == 1, done.stdout + done.stderr
    results = {r["name"]: r for r in json.loads((tmp_path / "report.json").read_text())["results"]}
    assert results["accepted"]["status"] == "PASS", results["accepted"]
    assert results["one request each, no retry"]["status"] == "PASS", results["one request each, no retry"]
    assert results["refused"]["failure"]["kind"] == "transport"
    assert "invalid_grant" in results["refused"]["failure"]["message"]
    again = results["not sent again"]["failure"]["message"]
    assert "not sent again: this workload token was refused" in again and "invalid_grant" in again
    report = (tmp_path / "report.json").read_text(encoding="utf-8")
    assert WORKLOAD not in report and "an-expired-workload-token" not in report


def test_an_identity_provider_that_refuses_the_exchange_is_named(plain_url: str, tmp_path: Path) -> None:
    base = plain_url.removesuffix("/mcp")
    enterprise = {
        "grant": "enterprise",
        "issuer": base,
        "client_id": CLIENT_ID,
        "client_secret": "${MCP_CLIENT_SECRET}",
        "id_token": "${WORKLOAD_TOKEN}",
        "idp_token_endpoint": f"{base}/token",  # not an identity provider
    }
    done = run(tmp_path, case("enterprise", plain_url, enterprise, "whoami", {"equals": "never"}))
    assert done.returncode == 1
    (result,) = json.loads((tmp_path / "report.json").read_text())["results"]
    assert result["failure"]["kind"] == "transport"
    message = result["failure"]["message"]
    assert f"OAuth: the identity provider's token exchange at {base}/token said 401" in message
    assert WORKLOAD not in (tmp_path / "report.json").read_text()
