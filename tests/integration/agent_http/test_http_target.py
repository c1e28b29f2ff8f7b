"""An agent tested over HTTP: requests built from the case and the target, answers read into a transcript,
failures classified, and the case's checks evaluated over what came back."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML
from tests.integration.agent_http.conftest import TOKEN
from tests.integration.mcp.helpers import free_port
from tests.unit.agent.builders import CLOCK

from toolproof.check.scenario import evaluate
from toolproof.core.sanitize import Scrubber
from toolproof.load import mibo, scenario_file
from toolproof.load.errors import LoadError
from toolproof.load.target import load_target_file
from toolproof.load.yaml_source import read_yaml
from toolproof.model.result import FailureKind, Status
from toolproof.model.scenario import AgentCase
from toolproof.model.target import HttpTarget
from toolproof.model.transcript import Transcript
from toolproof.sources.http_target import run_http_target, target_secrets

pytestmark = pytest.mark.servers
ENV = {"AGENT_TOKEN": TOKEN}


def load_case(tmp_path: Path, case: dict[str, Any]) -> AgentCase:
    """A toolproof scenario file written to disk and loaded as a user's would be."""
    path = tmp_path / f"case-{uuid.uuid4().hex[:6]}.yaml"
    with path.open("w") as stream:
        YAML().dump(case, stream)
    loaded = scenario_file.load(read_yaml(path).documents[0], path)
    assert len(loaded) == 1 and isinstance(loaded[0], AgentCase), loaded
    return loaded[0]


def target_of(case: AgentCase) -> HttpTarget:
    target = case.target
    assert isinstance(target, HttpTarget)
    return target


async def run(case: AgentCase, environ: dict[str, str] | None = None) -> Transcript:
    return await run_http_target(case, target_of(case), environ=ENV if environ is None else environ)


def unique(text: str) -> str:
    return f"{text} {uuid.uuid4().hex[:8]}"


async def test_one_turn_fills_the_template_and_reads_reply_trace_status_and_usage(
    agent_base: str, tmp_path: Path
) -> None:
    title = unique("buy oat milk")
    case = load_case(
        tmp_path,
        {
            "name": "remember",
            "prompt": f"remember {title}",
            "context": {"USER_ID": 12345},
            "target": {
                "url": f"{agent_base}/chat",
                "auth": {"bearer_env": "AGENT_TOKEN"},
                "headers": {"X-Team": "${TEAM:-support}"},
                "body": {
                    "input": "{user_message}",
                    "session": "{session_id}",
                    "user": "{USER_ID}",
                    "note": "user {USER_ID} asks, request {request_id}",
                    "meta": {"ids": ["{request_id}", "{external_id}"]},
                },
                "response_path": "data.reply",
            },
            "expect": [
                {"called": {"tool": "add_note", "args": {"title": title}}},
                {"reply": {"starts_with": "Noted:"}},
                {"http_status": 200},
                {"tokens": {"max_total": 1000}},
            ],
        },
    )
    transcript = await run(case)
    assert transcript.stop is None
    (turn,) = transcript.turns
    request_id = transcript.request_ids[0]
    assert turn.reply.startswith(f"Noted: {title} (note ")
    assert turn.http_status == 200
    assert turn.duration_ms is not None and turn.duration_ms > 0
    echo = turn.body["data"]["echo"]
    assert echo == {
        "input": f"remember {title}",
        "session": transcript.run,
        "user": 12345,  # a whole-value placeholder keeps the context value's type
        "note": f"user 12345 asks, request {request_id}",
        "meta": {"ids": [request_id, request_id]},
    }
    assert turn.body["data"]["request_id"] == request_id  # the x-request-id header
    assert [(call.tool, call.arguments["title"]) for call in turn.calls] == [("add_note", title)]
    assert turn.calls[0].result["title"] == title  # the real result of the notes server
    evaluation = evaluate(case, transcript, clock=CLOCK)
    assert evaluation.status is Status.PASS, evaluation.case_result().failure


async def test_checks_fail_on_what_the_agent_really_did(agent_base: str, tmp_path: Path) -> None:
    case = load_case(
        tmp_path,
        {
            "prompt": "hello there",
            "target": {"url": f"{agent_base}/chat", "auth": {"bearer_env": "AGENT_TOKEN"}},
            "expect": [{"called": "add_note"}, {"tokens": {"max_total": 5}}],
        },
    )
    result = await run(case)
    assert result.stop is None
    assert "I can remember things for you." in result.final.reply  # no response_path: the body
    failure = evaluate(case, result, clock=CLOCK).case_result().failure
    assert failure is not None
    assert "add_note" in failure.message and "token limit exceeded: total tokens" in failure.message


async def test_turns_share_a_session_and_calls_are_numbered_across_the_run(
    agent_base: str, tmp_path: Path
) -> None:
    title = unique("call the plumber")
    case = load_case(
        tmp_path,
        {
            "turns": [
                {"user": f"remember {title}", "expect": [{"called": "add_note"}]},
                {
                    "user": "What did I ask you to remember?",
                    "expect": [
                        {"called": {"tool": "search_notes", "args": {"query": title}, "index": 0}},
                        {"not_called": "add_note"},
                        {"reply": {"contains": title}},
                    ],
                },
            ],
            "expect": [{"sequence": ["add_note", "search_notes"]}],
            "target": {
                "url": f"{agent_base}/chat",
                "auth": {"bearer_env": "AGENT_TOKEN"},
                "body": {"message": "{input}", "session": "{session_id}"},
                "response_path": "data.reply",
            },
        },
    )
    result = await run(case)
    assert result.stop is None
    first, second = result.turns
    assert first.body["data"]["session"] == second.body["data"]["session"] == result.run
    assert second.body["data"]["turn"] == 2
    ids = result.request_ids
    assert len(set(ids)) == 2 and (first.body["data"]["request_id"], second.body["data"]["request_id"]) == ids
    assert [call.position for call in result.turns[1].calls] == [1]
    assert second.reply == f"You asked me to remember {title}."
    evaluation = evaluate(case, result, clock=CLOCK)
    assert evaluation.status is Status.PASS, evaluation.case_result().failure


async def test_custom_body_is_sent_as_written(agent_base: str, tmp_path: Path) -> None:
    body = {"message": "remember {not a placeholder}", "session": "fixed-session", "extra": [1, 2]}
    case = load_case(
        tmp_path,
        {
            "prompt": "ignored by the request",
            "body": body,
            "target": {"url": f"{agent_base}/chat", "auth": {"bearer_env": "AGENT_TOKEN"}},
            "expect": [{"called": "add_note"}],
        },
    )
    result = await run(case)
    assert result.stop is None
    data = result.final.body["data"]
    assert data["echo"] == body
    assert data["request_id"] == result.request_ids[0]


async def test_inline_span_trace_gives_nodes_and_their_calls(agent_base: str, tmp_path: Path) -> None:
    title = unique("water the plants")
    case = load_case(
        tmp_path,
        {
            "prompt": f"remember {title}",
            "target": {
                "url": f"{agent_base}/spans",
                "auth": {"bearer_env": "AGENT_TOKEN"},
                "response_path": "data.reply",
                "trace_path": "trace",
            },
            "expect": [
                {"node": {"name": "Notes Agent", "calls": [{"called": {"tool": "add_note", "index": 0}}]}}
            ],
        },
    )
    result = await run(case)
    assert result.stop is None
    turn = result.final
    assert turn.reply.startswith(f"Noted: {title}")
    assert [node.name for node in turn.nodes if node.calls] == ["Notes Agent"]
    assert [call.arguments["title"] for call in turn.all_calls()] == [title]
    assert evaluate(case, result, clock=CLOCK).status is Status.PASS


async def test_mibo_case_runs_against_a_target_file(agent_base: str, tmp_path: Path) -> None:
    title = unique("renew passport")
    target_file = tmp_path / "platform.yaml"
    template = json.dumps({"input": "{input}", "session": "{session_id}"})
    target_file.write_text(
        f"target:\n  url: {agent_base}/chat\n  auth: {{bearer_env: AGENT_TOKEN}}\n"
        f"  message_template: '{template}'\n  response_path: data.reply\n"
    )
    target = load_target_file(target_file)
    assert isinstance(target, HttpTarget)
    case_file = tmp_path / "case.json"
    case_file.write_text(
        json.dumps(
            {
                "scenario": "remembers a note",
                "input_utterance": f"remember {title}",
                "assertions": {
                    "procedural": [
                        {
                            "target": "node_call",
                            "condition": "MUST_CALL",
                            "expected_name": "add_note",
                            "expected_arguments": {"title": {"matcher": "contains", "value": "passport"}},
                        },
                        {"target": "http_status", "expected_status": 200},
                        {"target": "token_limit", "max_total_tokens": 500},
                    ]
                },
            }
        )
    )
    (case,) = mibo.load(read_yaml(case_file).documents[0], case_file)
    assert isinstance(case, AgentCase)
    result = await run_http_target(case, target, environ=ENV)
    assert result.stop is None
    assert evaluate(case, result, clock=CLOCK).status is Status.PASS


async def test_the_credential_never_reaches_a_report(agent_base: str, tmp_path: Path) -> None:
    case = load_case(
        tmp_path,
        {
            "prompt": "hello",
            "target": {"url": f"{agent_base}/leaky", "auth": {"bearer_env": "AGENT_TOKEN"}},
            "expect": [],
        },
    )
    result = await run(case)
    raw = json.dumps(result.model_dump(mode="json"))
    assert TOKEN in raw  # this agent echoes the header it got
    scrub = Scrubber(target_secrets(target_of(case), ENV))
    assert TOKEN not in json.dumps(scrub.value(result.model_dump(mode="json")))
    assert "Bearer ***" in json.dumps(scrub.value(result.model_dump(mode="json")))
    assert TOKEN not in repr(target_of(case))  # the config names the variable, never the value


async def test_error_status_is_a_transport_failure_unless_the_case_checks_it(
    agent_base: str, tmp_path: Path
) -> None:
    target = {"url": f"{agent_base}/fail", "auth": {"bearer_env": "AGENT_TOKEN"}}
    case = load_case(tmp_path, {"turns": [{"user": "one"}, {"user": "two"}], "target": target, "expect": []})
    result = await run(case)
    assert result.stop is not None and result.stop.kind is FailureKind.TRANSPORT
    assert f"turn 1: HTTP 500 from POST {agent_base}/fail" in result.stop.message
    assert "the agent crashed" in result.stop.message
    assert [turn.http_status for turn in result.turns] == [500]  # the conversation stopped

    checked = load_case(tmp_path, {"prompt": "one", "target": target, "expect": [{"http_status": 500}]})
    result = await run(checked)
    assert result.stop is None
    assert evaluate(checked, result, clock=CLOCK).status is Status.PASS


async def test_unauthorized_when_the_credential_is_wrong(agent_base: str, tmp_path: Path) -> None:
    case = load_case(
        tmp_path,
        {
            "prompt": "hi",
            "target": {"url": f"{agent_base}/chat", "auth": {"bearer_env": "AGENT_TOKEN"}},
            "expect": [],
        },
    )
    result = await run(case, {"AGENT_TOKEN": "not-the-token"})
    assert result.stop is not None and "HTTP 401" in result.stop.message
    missing = await run(case, {})
    assert missing.stop is not None and missing.stop.kind is FailureKind.CONFIG
    assert "AGENT_TOKEN is not set" in missing.stop.message


async def test_connection_refused_is_a_transport_failure(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/chat"
    case = load_case(tmp_path, {"prompt": "hi", "target": {"url": url}, "expect": []})
    result = await run(case)
    assert result.stop is not None and result.stop.kind is FailureKind.TRANSPORT
    assert f"turn 1: POST {url}: cannot reach the agent (ConnectError" in result.stop.message
    assert result.turns == ()


async def test_no_answer_in_time_is_a_timeout_failure(agent_base: str, tmp_path: Path) -> None:
    target = {"url": f"{agent_base}/slow", "auth": {"bearer_env": "AGENT_TOKEN"}, "timeout": "300ms"}
    case = load_case(tmp_path, {"prompt": "hi", "target": target, "expect": []})
    result = await run(case)
    assert result.stop is not None and result.stop.kind is FailureKind.TIMEOUT
    assert result.stop.message == f"turn 1: POST {agent_base}/slow: no answer within 0.3s"


async def test_unknown_placeholder_is_a_config_failure(agent_base: str, tmp_path: Path) -> None:
    target = {"url": f"{agent_base}/chat", "body": {"input": "{user_mesage}"}}
    case = load_case(tmp_path, {"prompt": "hi", "target": target, "expect": []})
    result = await run(case)
    assert result.stop is not None and result.stop.kind is FailureKind.CONFIG
    assert "body.input: unknown placeholder {user_mesage}" in result.stop.message


def test_a_bad_target_is_a_load_error_with_its_place(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("prompt: hi\nexpect: []\ntarget:\n  url: ftp://agent\n  methd: POST\n")
    errors = scenario_file.load(read_yaml(path).documents[0], path)
    assert all(isinstance(error, LoadError) for error in errors)
    assert [str(error) for error in errors] == [
        f"{path}:5:3: target.methd: unknown key (did you mean 'method'?)",
        f"{path}:4:3: target.url: must be an http:// or https:// URL, got 'ftp://agent'",
    ]
