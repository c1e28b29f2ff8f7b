"""`toolproof eval --record / --replay` of a case sent to an HTTP agent (agent_server.py on its own port):
every exchange is recorded without the credential, keyed without the run's request and session ids, and
replayed with the agent gone; a request the cassette does not hold is a `config` error, never a live call."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.integration.agent_http.conftest import TOKEN, running_agent

from toolproof.cli import main
from toolproof.model.transcript import Turn
from toolproof.sources.traces import read_traces

pytestmark = pytest.mark.servers
CREDENTIAL_ENV = "AGENT_PASS"  # a name that does not look secret: only `auth:` says it is
REMEMBER = "remember the passport renewal"
RECALL = "what did I ask you to remember?"


def write_case(path: Path, base: str, second: str = RECALL) -> Path:
    """Two turns to the agent's /leaky route, which echoes the Authorization header it got."""
    target = {
        "url": f"{base}/leaky",
        "auth": {"bearer_env": CREDENTIAL_ENV},
        "body": {"input": "{user_message}", "session": "{session_id}", "rid": "rid-{request_id}"},
        "response_path": "data.reply",
    }
    turns = [
        {"user": REMEMBER, "expect": [{"called": {"tool": "add_note"}}, {"reply": {"contains": "Noted"}}]},
        {"user": second, "expect": [{"reply": {"contains": "passport renewal"}}, {"http_status": 200}]},
    ]
    path.write_text(json.dumps({"name": "remembers over http", "target": target, "turns": turns}))
    return path


def toolproof_eval(tmp_path: Path, *argv: str | Path) -> tuple[int, dict[str, Any]]:
    report = tmp_path / "report.json"
    report.unlink(missing_ok=True)
    status = main(["eval", *map(str, argv), "--json", str(report), "-q"])
    return status, json.loads(report.read_text())


def turns_of(traces: Path) -> list[Turn]:
    (path,) = traces.glob("*.trace.json")
    (run,) = read_traces(path)
    return list(run.turns)


def recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, str]:
    """The case recorded against a live agent, which is stopped on return: the case, its cassette, and the
    agent's (now dead) base URL."""
    monkeypatch.setenv(CREDENTIAL_ENV, TOKEN)
    cassettes, traces = tmp_path / "cassettes", tmp_path / "recorded"
    with running_agent() as base:
        case = write_case(tmp_path / "http.yaml", base)
        status, report = toolproof_eval(tmp_path, case, "--record", cassettes, "--save-traces", traces)
    assert status == 0, report
    monkeypatch.delenv(CREDENTIAL_ENV)  # replay needs no credential
    (cassette,) = cassettes.glob("*.json")
    return case, cassette, base


def test_an_http_run_is_recorded_and_replayed_with_the_agent_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case, cassette, base = recorded(tmp_path, monkeypatch)
    text = cassette.read_text()
    assert TOKEN not in text
    assert '"authorization": "Bearer ***"' in text  # the agent's echo of the credential, masked
    exchanges = json.loads(text)["exchanges"]
    assert [entry["kind"] for entry in exchanges] == ["http", "http"]
    first = exchanges[0]
    assert first["request"] == {
        "method": "POST",
        "url": f"{base}/leaky",
        "body": {"input": REMEMBER, "session": "{session_id}", "rid": "rid-{request_id}"},
    }  # no headers: neither the credential nor the request id header is recorded
    assert first["response"]["status"] == 200
    assert first["response"]["duration_ms"] > 0
    assert first["response"]["body"]["data"]["reply"].startswith("Noted: the passport renewal")

    # The agent is stopped: a live request would be a transport failure. Replay runs with fresh ids.
    traces = tmp_path / "replayed"
    status, report = toolproof_eval(tmp_path, case, "--replay", cassette.parent, "--save-traces", traces)
    assert status == 0, report
    assert report["results"][0]["status"] == "PASS"
    assert turns_of(traces) == turns_of(tmp_path / "recorded")  # replies, calls, statuses, durations


def config_error(tmp_path: Path, case: Path, cassette: Path) -> str:
    """The message of the replayed case's verdict, which must be a `config` error (exit status 2)."""
    status, report = toolproof_eval(tmp_path, case, "--replay", cassette.parent)
    (result,) = report["results"]
    assert (status, result["status"], result["failure"]["kind"]) == (2, "ERROR", "config"), result
    message: str = result["failure"]["message"]
    assert message.startswith(f"cassette: {cassette}: no recorded answer for the HTTP request of turn ")
    assert "; record the run again" in message
    return message


def test_a_request_the_cassette_lacks_names_its_turn_message_and_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case, cassette, base = recorded(tmp_path, monkeypatch)
    write_case(case, base, second="what do you know?")
    message = config_error(tmp_path, case, cassette)
    assert f"turn 2 (POST {base}/leaky, user message 'what do you know?') (key " in message


def test_replay_never_sends_a_request_live(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case, cassette, _ = recorded(tmp_path, monkeypatch)
    monkeypatch.setenv(CREDENTIAL_ENV, TOKEN)
    with running_agent() as live:  # a live agent that would answer every turn, and the case passes live
        write_case(case, live)
        message = config_error(tmp_path, case, cassette)
    assert f"turn 1 (POST {live}/leaky, user message '{REMEMBER}')" in message
