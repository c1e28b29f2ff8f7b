"""The project file (`toolproof.yaml`): an HTTP target and provider limits beside the other settings, and a
misspelt key still a load error that names the file, the line and the field."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.unit.load.conftest import Write

from toolproof.load.project_file import load_project
from toolproof.model.target import HttpTarget, TargetAuth

PROJECT = """
provider: openai
model: gpt-test
max_concurrency: 2
max_retries: 0
request_timeout: 1m30s
timeout: 5m
judge: {provider: anthropic, model: claude-test, max_concurrency: 1, max_retries: 5, request_timeout: 10s}
agents:
  careful: {provider: anthropic, model: claude-test, max_concurrency: 3}
target:
  url: http://127.0.0.1:9/chat
  auth: {bearer_env: AGENT_TOKEN}
  message_template: '{"input": "{input}", "session": "{session_id}"}'
  response_path: data.reply
  timeout: 5s
"""


def test_provider_limits_and_target(write: Write) -> None:
    config, errors = load_project(write(PROJECT, "toolproof.yaml"))
    assert errors == []
    assert (config.max_concurrency, config.max_retries, config.request_timeout) == (2, 0, 90.0)
    assert config.timeout == 300.0  # the trial's, apart from the provider's request timeout
    assert config.judge is not None
    assert (config.judge.max_concurrency, config.judge.max_retries, config.judge.request_timeout) == (
        1,
        5,
        10.0,
    )
    assert config.agents["careful"].max_concurrency == 3
    assert config.target == HttpTarget(
        url="http://127.0.0.1:9/chat",
        auth=TargetAuth(env="AGENT_TOKEN"),
        body={"input": "{input}", "session": "{session_id}"},
        response_path="data.reply",
        timeout_s=5.0,
    )


@pytest.mark.parametrize(
    ("text", "line", "field", "hint"),
    [
        ("provider: openai\nmax_concurency: 2\n", 2, "max_concurency", "did you mean 'max_concurrency'?"),
        ("judge:\n  provider: openai\n  max_retry: 2\n", 3, "judge.max_retry", "did you mean 'max_retries'?"),
        ("max_retries: -1\n", 1, "max_retries", None),
        ("request_timeout: soon\n", 1, "request_timeout", None),
        ("target:\n  url: http://x/chat\n  respons_path: a.b\n", 3, "target.respons_path", None),
        ("target:\n  method: GET\n", 1, "target", None),  # no url
        ("target:\n  url: ftp://x\n", 2, "target.url", None),
    ],
)
def test_a_wrong_key_or_value_names_file_line_and_field(
    write: Write, text: str, line: int, field: str, hint: str | None
) -> None:
    path = write(text, "toolproof.yaml")
    config, errors = load_project(path)
    assert errors, config
    error = errors[0]
    assert (error.file, error.line, error.field) == (path, line, field), str(error)
    if hint is not None:
        assert error.hint == hint


def test_target_and_servers_errors_are_reported_together(write: Write, tmp_path: Path) -> None:
    path = write(
        "servers:\n  notes: {comand: python}\ntarget: {url: http://x/chat, verb: POST}\n", "toolproof.yaml"
    )
    _, errors = load_project(path)
    assert {error.field for error in errors} == {"servers.notes.comand", "target.verb"}
