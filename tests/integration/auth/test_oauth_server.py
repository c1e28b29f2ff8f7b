"""OAuth against a real protected Streamable HTTP server (tests/servers/oauth_server.py, on the SDK's auth
server side): `toolproof run` runs as in CI, with nothing but a client id and secret in its environment."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
import webbrowser
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from tests.integration.mcp.helpers import ROOT, listening

from toolproof.mcp.auth import EXPIRY_MARGIN_S
from toolproof.mcp.errors import RequestFailed
from toolproof.mcp.session import open_session
from toolproof.mcp.spec import ConnectSpec
from toolproof.model.server_config import AuthConfig, Transport

SERVER = ROOT / "tests" / "servers" / "oauth_server.py"
CLIENT_ID = "ci-client"
SECRET = "s3cret-for-ci-7d41"
SERVER_ENV = {**os.environ, "OAUTH_CLIENT_ID": CLIENT_ID, "OAUTH_CLIENT_SECRET": SECRET}
CI_ENV = {"PATH": os.environ["PATH"], "MCP_CLIENT_ID": CLIENT_ID, "MCP_CLIENT_SECRET": SECRET}

pytestmark = pytest.mark.servers


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with listening([sys.executable, str(SERVER)], SERVER_ENV) as port:
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.fixture(params=[3600, 5], ids=["long-lived", "short-lived"])
def fresh(request: pytest.FixtureRequest) -> Iterator[tuple[str, int]]:
    """A server of its own (it has issued no token yet) and the lifetime of its tokens: 5 s expire before
    toolproof would reuse them."""
    ttl = int(request.param)
    with listening([sys.executable, str(SERVER), "--token-ttl", str(ttl)], SERVER_ENV) as port:
        yield f"http://127.0.0.1:{port}/mcp", ttl


def case(name: str, url: str, tool: str, expect: str, auth: str) -> str:
    return json.dumps(
        {
            "name": name,
            "server": {"transport": "http", "url": url, "auth": json.loads(auth)},
            "assert": {"tool": tool, "expect": json.loads(expect)},
        }
    )


CREDENTIALS = '"client_id": "${MCP_CLIENT_ID}", "client_secret": "${MCP_CLIENT_SECRET}"'
CLIENT_CREDENTIALS = '{"grant": "client_credentials", ' + CREDENTIALS + "}"


def run(workdir: Path, *cases: str) -> subprocess.CompletedProcess[str]:
    """`toolproof run` over `cases` from `workdir`, with the CI environment only."""
    (workdir / "suite.yaml").write_text("\n---\n".join(cases) + "\n", encoding="utf-8")
    command = [sys.executable, "-m", "toolproof", "run", "-j", "1", "suite.yaml", "--json", "report.json"]
    return subprocess.run(command, cwd=workdir, env=CI_ENV, capture_output=True, text=True, timeout=120)


def test_client_credentials_from_the_environment_only(url: str, tmp_path: Path) -> None:
    done = run(
        tmp_path,
        case("whoami", url, "whoami", '{"equals": "ci-client notes"}', CLIENT_CREDENTIALS),
        case("one token for both cases", url, "tokens_issued", '{"equals": "1"}', CLIENT_CREDENTIALS),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (cached,) = (tmp_path / ".toolproof" / "oauth").iterdir()
    assert stat.S_IMODE(cached.stat().st_mode) == 0o600
    assert (tmp_path / ".toolproof" / ".gitignore").read_text() == "# created by toolproof\n*\n"
    assert "access_token" in json.loads(cached.read_text())["tokens"]


def test_cached_tokens_are_reused_until_they_expire(fresh: tuple[str, int], tmp_path: Path) -> None:
    url, ttl = fresh
    first = run(tmp_path, case("first", url, "tokens_issued", '{"equals": "1"}', CLIENT_CREDENTIALS))
    issued = json.dumps({"equals": "1" if ttl > EXPIRY_MARGIN_S else "2"})
    again = run(tmp_path, case("again", url, "tokens_issued", issued, CLIENT_CREDENTIALS))
    assert (first.returncode, again.returncode) == (0, 0), first.stdout + again.stdout


def test_the_command_line_gives_oauth_to_a_suite_without_an_auth_block(url: str, tmp_path: Path) -> None:
    suite = {"name": "plain", "server": {"transport": "http", "url": url}, "assert": {"tool": "whoami"}}
    (tmp_path / "suite.yaml").write_text(json.dumps(suite), encoding="utf-8")
    flags = [
        "--oauth-client-id",
        CLIENT_ID,
        "--oauth-client-secret-env",
        "MCP_CLIENT_SECRET",
        "--oauth-scope",
        "notes",
    ]
    command = [sys.executable, "-m", "toolproof", "run", "suite.yaml", "-v", *flags]
    done = subprocess.run(command, cwd=tmp_path, env=CI_ENV, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert SECRET not in done.stdout


def test_the_token_and_the_secret_are_masked_in_every_report(url: str, tmp_path: Path) -> None:
    done = run(tmp_path, case("leaky", url, "echo_token", '{"equals": "no token here"}', CLIENT_CREDENTIALS))
    assert done.returncode == 1
    (cached,) = (tmp_path / ".toolproof" / "oauth").iterdir()
    token = json.loads(cached.read_text())["tokens"]["access_token"]
    report = (tmp_path / "report.json").read_text()
    for shown in (done.stdout, report):
        assert token not in shown and SECRET not in shown
    assert "actual: ***" in done.stdout


def test_a_wrong_secret_is_an_oauth_failure_with_the_secret_masked(url: str, tmp_path: Path) -> None:
    wrong = CLIENT_CREDENTIALS.replace("${MCP_CLIENT_SECRET}", "wrong-secret-0000")
    done = run(tmp_path, case("wrong", url, "whoami", '{"not_error": true}', wrong))
    assert done.returncode == 1
    assert "OAuth: Token exchange failed (401)" in done.stdout
    assert "wrong-secret-0000" not in done.stdout


@pytest.mark.parametrize(
    "auth",
    [
        '{"grant": "authorization_code", ' + CREDENTIALS + "}",
        '{"grant": "authorization_code", "token_endpoint_auth_method": "client_secret_post", '
        + CREDENTIALS.replace("${MCP_CLIENT_ID}", "${MCP_CLIENT_ID}-post")
        + "}",
        '{"grant": "authorization_code"}',
    ],
    ids=["pre-registered", "client-secret-post", "dynamic-registration"],
)
def test_authorization_code_with_pkce_approved_headlessly(url: str, tmp_path: Path, auth: str) -> None:
    done = run(tmp_path, case("whoami", url, "whoami", '{"contains": [" notes"]}', auth))
    assert done.returncode == 0, done.stdout + done.stderr


async def test_authorization_code_in_the_browser(
    url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`browser: true` opens the authorization URL and takes the code at a loopback callback; the browser is
    a thread that follows the redirects, as a person approving at once would."""
    opened: list[str] = []

    def browser(address: str) -> bool:
        opened.append(address)
        follow = {"follow_redirects": True}
        threading.Thread(target=httpx2.get, args=(address,), kwargs=follow, daemon=True).start()
        return True

    monkeypatch.setattr(webbrowser, "open", browser)
    config = AuthConfig(grant="authorization_code", browser=True)
    spec = ConnectSpec(transport=Transport.HTTP, url=url, auth=config, token_cache=str(tmp_path))
    async with open_session(spec) as session:
        result = await session.call_tool("whoami", {})
    assert result["content"][0]["text"].endswith(" notes")
    assert len(opened) == 1 and "code_challenge_method=S256" in opened[0]


async def test_no_auth_block_gives_a_401_failure(url: str) -> None:
    spec = ConnectSpec(transport=Transport.HTTP, url=url)
    with pytest.raises(RequestFailed) as caught:
        async with open_session(spec):
            pass
    assert "401" in caught.value.failure.message


def test_conformance_reaches_a_protected_server_with_the_oauth_options(url: str, tmp_path: Path) -> None:
    flags = ["--oauth-client-id", CLIENT_ID, "--oauth-client-secret-env", "MCP_CLIENT_SECRET"]
    command = [sys.executable, "-m", "toolproof", "conformance", "--server", url, "-q"]
    done = subprocess.run(
        [*command, *flags], cwd=tmp_path, env=CI_ENV, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr
    refused = subprocess.run(command, cwd=tmp_path, env=CI_ENV, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2
    assert "HTTP 401 Unauthorized" in refused.stdout and "--oauth-client-id" in refused.stdout
