"""The project file of `toolproof eval` (`toolproof.yaml`): defaults every case of a run shares.

```yaml
provider: openai            # the agent's provider: openai | anthropic | scripted
model: gpt-4o-mini
base_url: http://localhost:8000/v1     # an OpenAI- or Anthropic-compatible endpoint
api_key_env: OPENAI_API_KEY            # where the key is read from (default: the provider's usual variable)
script: scripts/agent.yaml             # the scripted provider's script (relative to this file)
system: You are a support agent.
max_steps: 30               # model calls per user turn before the run stops
temperature: 0
max_tokens: 4096
guardrails:                 # PromptKit's validators, run on each reply (guardrail_triggered reads them):
  - {type: banned_words, params: {words: [guarantee]}}   # also max_length, max_sentences,
                            # required_fields, commit (see model/guardrail.py)
max_concurrency: 4          # the provider's requests in flight at once (shared by every case using it)
max_retries: 3              # further tries after a 429, a 5xx or a connection error
request_timeout: 60s        # one HTTP request to the provider (`timeout` below bounds a whole trial)
judge: {provider: anthropic, model: claude-haiku-4-5, base_url: ..., api_key_env: ..., script: ...,
        max_concurrency: 2, max_retries: 3, request_timeout: 60s}
servers:                    # MCP servers for cases that name none (PromptKit, Mibo, MCPLab refs)
  notes: {command: python, args: [examples/servers/notes_server.py]}
target: {url: http://localhost:8080/chat, response_path: reply}   # an HTTP agent for cases that name no
                            # servers and no target (a case's `target:` keys); it wins over `servers:`
agents:                     # agents that MCPLab `- ref: <id>` entries name
  claude-haiku: {provider: anthropic, model: claude-haiku-4-5}
trials: 1
k: 1                        # pass@k / pass^k (default: trials)
pass_threshold: 1.0         # share of trials that must pass
timeout: 5m                 # per trial
jobs: 2
```
Command-line flags override every key. Relative paths are read from the file's directory.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, field_validator

from toolproof.core.durations import parse_duration
from toolproof.load.agent_setup import read_servers
from toolproof.load.errors import LoadError
from toolproof.load.reader import Reader
from toolproof.load.target import read_target
from toolproof.load.validation import validation_errors
from toolproof.load.yaml_source import Document, read_yaml
from toolproof.model.base import Frozen
from toolproof.model.guardrail import Guardrail
from toolproof.model.server_config import ServerConfig
from toolproof.model.target import HttpTarget


def _seconds(value: Any) -> Any:
    return parse_duration(value) if isinstance(value, str) else value


class ProviderSettings(Frozen):
    """Which model answers: the provider kind, the model, where to reach it, or the script that plays it;
    and how the provider behaves (its concurrency limit, retries and per-request timeout)."""

    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    script: Path | None = None
    max_concurrency: int | None = Field(default=None, ge=1)
    max_retries: int | None = Field(default=None, ge=0)
    request_timeout: float | None = Field(default=None, gt=0)

    @field_validator("request_timeout", mode="before")
    @classmethod
    def _request_duration(cls, value: Any) -> Any:
        return _seconds(value)


class AgentSettingsFile(ProviderSettings):
    """An agent: its provider settings and how it runs."""

    system: str | None = None
    max_steps: int | None = Field(default=None, ge=1)
    temperature: float | None = Field(default=None, ge=0, le=2)
    max_tokens: int | None = Field(default=None, ge=1)
    guardrails: list[Guardrail] | None = None


class ProjectConfig(AgentSettingsFile):
    """The whole project file (see the module docstring)."""

    judge: ProviderSettings | None = None
    agents: dict[str, AgentSettingsFile] = Field(default_factory=dict)
    servers: dict[str, ServerConfig] = Field(default_factory=dict)
    target: HttpTarget | None = None
    trials: int | None = Field(default=None, ge=1)
    k: int | None = Field(default=None, ge=1)
    pass_threshold: float | None = Field(default=None, ge=0, le=1)
    timeout: float | None = Field(default=None, gt=0)
    jobs: int | None = Field(default=None, ge=1)

    @field_validator("timeout", mode="before")
    @classmethod
    def _duration(cls, value: Any) -> Any:
        return _seconds(value)


def load_project(path: Path) -> tuple[ProjectConfig, list[LoadError]]:
    """The project file at `path` (relative paths resolved against its directory), or its errors."""
    source = read_yaml(path)
    if source.errors or not source.documents:
        return ProjectConfig(), source.errors or [LoadError(path, 1, 1, "", "empty project file")]
    document = source.documents[0]
    data = dict(document.data)
    servers, errors = (
        read_servers(document, data.pop("servers"), ("servers",)) if "servers" in data else ({}, [])
    )
    target, target_errors = _target(document, data.pop("target")) if "target" in data else (None, [])
    errors += target_errors
    try:
        config = ProjectConfig.model_validate(data)
    except ValidationError as error:
        return ProjectConfig(), [*errors, *validation_errors(error, ProjectConfig, document, lambda loc: loc)]
    if errors:
        return ProjectConfig(), errors
    base = path.resolve().parent
    judge = config.judge
    if judge is not None and judge.script is not None:
        judge = judge.model_copy(update={"script": base / judge.script})
    agents = {
        name: agent.model_copy(update={"script": base / agent.script}) if agent.script else agent
        for name, agent in config.agents.items()
    }
    return config.model_copy(
        update={
            "script": base / config.script if config.script else None,
            "judge": judge,
            "agents": agents,
            "servers": {name: _relative(server, base) for name, server in servers.items()},
            "target": target,
        }
    ), []


def _target(document: Document, value: Any) -> tuple[HttpTarget | None, list[LoadError]]:
    """The project's `target:`, read as a case's is (its errors name the file, line and field)."""
    reader = Reader(document)
    target = read_target(reader, value, ("target",))
    return target, list(reader.errors)


def _relative(server: ServerConfig, base: Path) -> ServerConfig:
    """A stdio server started from the project directory unless it names its own `cwd`."""
    if server.command and server.cwd is None:
        return server.model_copy(update={"cwd": str(base)})
    return server
