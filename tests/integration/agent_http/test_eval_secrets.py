"""`toolproof eval` masks an HTTP target's credential in every report, whatever its variable is called."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.integration.agent_http.conftest import TOKEN

from toolproof.cli import main

pytestmark = pytest.mark.servers


def test_a_credential_in_a_plainly_named_variable_is_masked(
    agent_base: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENT_TOKEN", raising=False)
    monkeypatch.setenv("AGENT_PASS", TOKEN)  # a name that does not look secret: only `auth:` says it is
    case = tmp_path / "leaky.yaml"
    target = {
        "url": f"{agent_base}/leaky",  # echoes the Authorization header it got
        "auth": {"bearer_env": "AGENT_PASS"},
        "response_path": "data.authorization",
    }
    case.write_text(json.dumps({"name": "leaky agent", "prompt": "hello", "target": target,
                                "expect": [{"reply": {"contains": "all good"}}]}))  # fmt: skip
    report, junit, traces = tmp_path / "report.json", tmp_path / "junit.xml", tmp_path / "traces"
    reports = ["--json", str(report), "--junit", str(junit), "--save-traces", str(traces)]
    assert main(["eval", str(case), *reports, "-q"]) == 1

    (result,) = json.loads(report.read_text())["results"]
    assert result["failure"]["kind"] == "expectation"  # the agent accepted the credential and echoed it
    assert 'response: "Bearer ***"' in result["failure"]["message"]
    (trace,) = traces.iterdir()
    for written in (report, junit, trace):
        assert TOKEN not in written.read_text(), written
