"""The pure parts of the HTTP target: body templates, response reading, and the `target:` configuration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolproof.load import scenario_file
from toolproof.load.errors import LoadError
from toolproof.load.target import load_target_file
from toolproof.load.yaml_source import read_yaml
from toolproof.model.scenario import AgentCase
from toolproof.model.target import HttpTarget, TargetAuth
from toolproof.sources.http_body import (
    TemplateError,
    decode_body,
    fill_template,
    read_response,
    template_variables,
)
from toolproof.sources.http_target import request_headers, target_secrets
from toolproof.sources.traces.values import lookup

VARIABLES = template_variables(
    {"USER_ID": 7, "ORDER": {"sku": "A-1"}, "input": "shadowed"}, "hi", "r-1", "s-1"
)


def test_placeholders_fill_string_values_only_and_keep_whole_values_typed() -> None:
    template = {
        "input": "{input}",
        "{user_message}": "{user_message}",
        "user": "{USER_ID}",
        "order": "{ORDER}",
        "text": 'user {USER_ID} ordered {ORDER} ("{request_id}")',
        "list": ["{session_id}", 3, True, None, {"id": "{external_id}"}],
        "quote": 'a "{input}" \\ b',
    }
    assert fill_template(template, VARIABLES) == {
        "input": "hi",  # the built-in wins over a context variable of that name
        "{user_message}": "hi",
        "user": 7,
        "order": {"sku": "A-1"},
        "text": 'user 7 ordered {"sku": "A-1"} ("r-1")',
        "list": ["s-1", 3, True, None, {"id": "r-1"}],
        "quote": 'a "hi" \\ b',
    }
    assert fill_template("{ not a placeholder } {{x", VARIABLES) == "{ not a placeholder } {{x"


def test_an_unknown_placeholder_names_where_it_is() -> None:
    with pytest.raises(
        TemplateError, match=r"body\.messages\[1\]\.text: unknown placeholder \{USERID\} \(known: "
    ):
        fill_template({"messages": [{}, {"text": "for {USERID}"}]}, VARIABLES)


def test_bodies_decode_as_json_when_they_are() -> None:
    assert decode_body(b'{"a": 1}', "text/plain") == {"a": 1}
    assert decode_body(b"[1", "application/json") == "[1"
    assert decode_body(b"plain words", "text/plain") == "plain words"


def test_lookup_follows_dot_paths_into_lists() -> None:
    body = {"data": {"choices": [{"message": {"content": "yes"}}]}}
    assert lookup(body, "data.choices.0.message.content") == "yes"
    assert lookup(body, "data.choices.1") is None


def answer(body: Any, **fields: Any) -> tuple[str, list[str], list[str]]:
    reply, calls, nodes = read_response(body, HttpTarget(url="http://agent", **fields), "test")
    every = [*calls, *(call for node in nodes for call in node.calls)]
    return reply, [f"{call.tool}{call.arguments}" for call in every], [node.name for node in nodes]


def test_replies_and_inline_traces_are_read_from_the_body() -> None:
    custom = {"data": {"reply": "done"}, "tool_calls": [{"name": "add", "arguments": '{"a": 1}'}]}
    assert answer(custom, response_path="data.reply") == ("done", ["add{'a': 1}"], [])
    assert answer({"answer": "fallback"}, response_path="data.reply") == ("fallback", [], [])
    flowise = {"text": "hello", "chatId": "c", "usedTools": [{"tool": "search", "toolInput": {"q": "x"}}]}
    assert answer(flowise) == ("hello", ["search{'q': 'x'}"], [])
    spans = {
        "spans": [
            {"span_id": "r", "name": "run"},
            {"span_id": "n", "parent_span_id": "r", "name": "Agent"},
            {"span_id": "t", "parent_span_id": "n", "name": "x", "attributes": {"gen_ai.tool.name": "find"}},
        ]
    }
    reply, calls, nodes = answer(
        {"out": {"text": "ok"}, "trace": spans}, response_path="out.text", trace_path="trace"
    )
    assert (reply, calls) == ("ok", ["find{}"]) and "Agent" in nodes


def test_headers_expand_the_environment_and_carry_the_credential() -> None:
    target = HttpTarget(
        url="http://agent",
        headers={"X-Team": "${TEAM:-core}", "X-Api-Key": "${KEY}"},
        auth=TargetAuth(env="AGENT_TOKEN"),
    )
    environ = {"KEY": "key-abcdef", "AGENT_TOKEN": "token-123456"}
    assert request_headers(target, environ) == {
        "X-Team": "core",
        "X-Api-Key": "key-abcdef",
        "Authorization": "Bearer token-123456",
    }
    assert target_secrets(target, environ) == {"key-abcdef", "token-123456"}
    custom = HttpTarget(url="http://agent", auth=TargetAuth(env="K", header="X-Key", scheme=None))
    assert request_headers(custom, {"K": "secret-value"}) == {"X-Key": "secret-value"}


def load(tmp_path: Path, text: str) -> list[AgentCase | LoadError]:
    path = tmp_path / "case.yaml"
    path.write_text(text)
    return scenario_file.load(read_yaml(path).documents[0], path)


def test_a_target_key_loads_into_the_case(tmp_path: Path) -> None:
    (case,) = load(
        tmp_path,
        "prompt: hi\nexpect: []\ntarget:\n  url: http://agent/chat\n  method: put\n"
        "  auth: {header: X-Key, env: AGENT_KEY}\n  body: {q: '{input}'}\n  timeout: 1m30s\n"
        "  platform: n8n\n  response_path: data.text\n  request_id_header: x-trace\n",
    )
    assert isinstance(case, AgentCase)
    assert case.target == HttpTarget(
        url="http://agent/chat",
        method="PUT",
        auth=TargetAuth(env="AGENT_KEY", header="X-Key", scheme=None),
        body={"q": "{input}"},
        timeout_s=90.0,
        platform="n8n",
        response_path="data.text",
        request_id_header="x-trace",
    )


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("  method: GET\n", "5:3: target.method: must be one of POST, PUT, PATCH, got 'GET'"),
        ("  auth: {bearer: X}\n", "5:10: target.auth.bearer: unknown key"),
        ("  timeout: soon\n", "5:3: target.timeout: invalid duration 'soon'"),
        ("  timeout: 0s\n", "5:3: target.timeout: must be positive, got '0s'"),
        ("  platform: zapier\n", "5:3: target.platform: must be one of auto, custom, n8n, flowise"),
        (
            "  message_template: '{input'\n",
            "5:3: target.message_template: a template given as text must be JSON",
        ),
        ("  body: {}\n  message_template: '{}'\n", "6:3: target.message_template: give either body or"),
    ],
)
def test_target_mistakes_are_load_errors_with_line_and_field(
    tmp_path: Path, target: str, message: str
) -> None:
    errors = load(tmp_path, f"prompt: hi\nexpect: []\ntarget:\n  url: http://agent\n{target}")
    assert any(message in str(error) for error in errors), [str(error) for error in errors]


def test_a_missing_url_is_named(tmp_path: Path) -> None:
    (error,) = load(tmp_path, "prompt: hi\nexpect: []\ntarget:\n  method: POST\n")
    assert str(error).endswith("3:1: target: required key 'url' missing")


def test_a_target_file_holds_the_mibo_platform_settings(tmp_path: Path) -> None:
    path = tmp_path / "platform.json"
    path.write_text('{"url": "https://agent", "message_template": "{\\"input\\": \\"{input}\\"}"}')
    assert load_target_file(path) == HttpTarget(url="https://agent", body={"input": "{input}"})
    path.write_text("target:\n  url: https://agent\n  auth: none\n")
    assert load_target_file(path) == HttpTarget(url="https://agent")
    path.write_text("target:\n  url: https://agent\n  verb: POST\n")
    (error,) = load_target_file(path)
    assert str(error) == f"{path}:3:3: target.verb: unknown key (known keys: {', '.join(sorted(_KEYS))})"


_KEYS = [
    "auth",
    "body",
    "headers",
    "message_template",
    "method",
    "platform",
    "request_id_header",
    "response_path",
    "timeout",
    "trace_path",
    "url",
]
