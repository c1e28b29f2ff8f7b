"""Secrets written as `${VAR}` are masked in every report as the values really sent: an env value named like
a secret, a secret-looking header (and the credentials after its scheme), a variable the url refers to."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from toolproof.cli import main

KEY = "sk-plain-4f8a2c19"  # held in variables whose names do not look secret
TOKEN = "tok-plain-93b1e7d0"

LEAKY_SERVER = """
import os, sys
sys.stderr.write(f"starting with key={os.environ.get('API_KEY')}\\n")
sys.exit(3)
"""


@pytest.fixture
def suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PLAIN_ONE", KEY)
    monkeypatch.setenv("PLAIN_TWO", TOKEN)
    (tmp_path / "leaky.py").write_text(textwrap.dedent(LEAKY_SERVER))
    cases = tmp_path / "cases"
    cases.mkdir()
    (cases / "a_env.yaml").write_text(
        f"name: env\nserver:\n  command: {sys.executable}\n  args: [{tmp_path / 'leaky.py'}]\n"
        "  env: {API_KEY: '${UNSET_ONE:-sk-plain-4f8a2c19}'}\n"
        "assert: {tool: t, expect: {not_error: true}}\n"
    )
    (cases / "b_http.yaml").write_text(
        "name: http\nserver:\n  transport: http\n  url: 'http://127.0.0.1:1/mcp?token=${PLAIN_TWO}'\n"
        "  headers: {Authorization: 'Bearer ${PLAIN_ONE}'}\n"
        "assert: {tool: t, expect: {not_error: true}}\n"
    )
    return cases


def test_expanded_secrets_are_masked_in_every_report(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report, junit = tmp_path / "report.json", tmp_path / "report.xml"
    assert main(["run", str(suite), "--json", str(report), "--junit", str(junit), "--timeout", "20s"]) == 1
    out = capsys.readouterr()
    written = out.out + out.err + report.read_text() + junit.read_text()
    assert "key=***" in written  # the server's stderr, shown with its failure
    assert "token=***" in written  # the url, named in the connection failure
    assert KEY not in written and TOKEN not in written
    env, http = json.loads(report.read_text())["results"]
    assert env["failure"]["kind"] == http["failure"]["kind"] == "transport"
