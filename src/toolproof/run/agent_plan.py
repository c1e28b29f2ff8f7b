"""Which agent runs each case, against which MCP servers: the plan of `toolproof eval`, before anything runs.

Agent settings come in layers, later winning: the defaults, what a replayed cassette recorded (under
`--replay` only), the project file, the case's own (a toolproof `agent:` block, an MCPLab agent), the command
line. An MCPLab config runs each scenario once per selected agent (named `scenario [agent]`). Servers: a
toolproof case's `servers:`, an MCPLab scenario's `mcp_servers` / `servers` (resolved in the config's server
pool, then the project file). A case that names no servers and no target is sent to the fallback target when
there is one, else gets the project file's servers and those given with `--server`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from toolproof.load.project_file import AgentSettingsFile, ProjectConfig
from toolproof.model.guardrail import Guardrail
from toolproof.model.scenario import AgentCase
from toolproof.model.server_config import ServerConfig, Transport
from toolproof.model.target import HttpTarget
from toolproof.sources.agent.loop import DEFAULT_MAX_STEPS

AGENT_FIELDS = (
    "provider",
    "model",
    "base_url",
    "api_key_env",
    "script",
    "system",
    "max_steps",
    "temperature",
    "max_tokens",
    "max_concurrency",
    "max_retries",
    "request_timeout",
    "guardrails",
)
Recorded = Callable[[AgentCase], Mapping[str, Any]]
"""Under `--replay`: the agent settings a case's cassette recorded, the lowest layer of its plan."""


@dataclass(frozen=True)
class AgentSpec:
    """Everything that decides how the agent of one run is called: its provider (kind, endpoint, model, key;
    the provider's limits, None for its defaults) and the settings of each request and of the loop (the
    guardrails run on each reply among them)."""

    provider: str
    model: str
    base_url: str | None = None
    api_key_env: str | None = None
    script: Path | None = None
    system: str | None = None
    max_steps: int = DEFAULT_MAX_STEPS
    temperature: float | None = None
    max_tokens: int = 4096
    max_concurrency: int | None = None
    max_retries: int | None = None
    request_timeout: float | None = None
    guardrails: tuple[Guardrail, ...] = ()


HTTP_AGENT = AgentSpec(provider="http", model="")
"""The agent of a case with a `target:`: the endpoint answers, no provider is made."""


@dataclass(frozen=True)
class Plan:
    """One runnable case: the case (named for this run), its agent and its servers."""

    case: AgentCase
    agent: AgentSpec
    servers: Mapping[str, ServerConfig] = field(default_factory=dict)


@dataclass(frozen=True)
class Unplannable:
    """A case that cannot run as configured, and why."""

    case: AgentCase
    message: str


def plan_cases(
    cases: Sequence[AgentCase],
    project: ProjectConfig,
    flags: Mapping[str, Any],
    extra_servers: Mapping[str, ServerConfig],
    *,
    target: HttpTarget | None = None,
    recorded: Recorded | None = None,
) -> list[Plan | Unplannable]:
    """The plan of every case, in order.

    `flags` are the agent settings given on the command line; `target` is the HTTP agent of cases that name
    no servers and no target of their own; `recorded` (under `--replay`) gives what a case's cassette
    recorded, for the settings nobody configured.
    """
    fallback = {**project.servers, **extra_servers}
    found: list[Plan | Unplannable] = []
    for case in cases:
        if target is not None and not _names_agent(case):
            case = case.model_copy(update={"target": target})
        if case.target is not None:  # an agent over HTTP: no model, no server of ours
            found.append(Plan(case, HTTP_AGENT))
            continue
        try:
            servers = _servers(case, project, fallback)
        except ValueError as error:
            found.append(Unplannable(case, str(error)))
            continue
        for name, own in _agents(case, project):
            named = case if name is None else case.model_copy(update={"name": f"{case.name} [{name}]"})
            replayed = recorded(named) if recorded else {}
            settings = _merged([replayed, _given(project), {"system": case.system}, own, flags])
            agent = _spec(settings)
            if isinstance(agent, str):
                found.append(Unplannable(named, agent))
            else:
                found.append(Plan(named, agent, servers))
    return found


def _names_agent(case: AgentCase) -> bool:
    """Whether the case says how its agent is reached: its own target, servers or MCPLab `mcp_servers`."""
    mcplab = case.metadata.get("servers") or case.metadata.get("mcp_servers")
    return bool(case.target or case.servers or mcplab)


def _given(settings: AgentSettingsFile) -> dict[str, Any]:
    return {key: getattr(settings, key) for key in AGENT_FIELDS}


def _merged(layers: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for layer in layers:
        merged |= {key: value for key, value in layer.items() if value is not None}
    return merged


def _spec(settings: Mapping[str, Any]) -> AgentSpec | str:
    provider = settings.get("provider")
    if not provider:
        return "no provider configured: give --provider, or provider: in toolproof.yaml or the case's agent"
    model = settings.get("model") or ("scripted" if provider == "scripted" else None)
    if not model:
        return f"no model configured for provider {provider!r}: give --model, or model: in toolproof.yaml"
    return AgentSpec(
        provider=str(provider),
        model=str(model),
        base_url=settings.get("base_url"),
        api_key_env=settings.get("api_key_env"),
        script=settings.get("script"),
        system=settings.get("system"),
        max_steps=int(settings.get("max_steps", DEFAULT_MAX_STEPS)),
        temperature=settings.get("temperature"),
        max_tokens=int(settings.get("max_tokens", 4096)),
        max_concurrency=settings.get("max_concurrency"),
        max_retries=settings.get("max_retries"),
        request_timeout=settings.get("request_timeout"),
        guardrails=tuple(settings.get("guardrails") or ()),
    )


def _agents(case: AgentCase, project: ProjectConfig) -> list[tuple[str | None, dict[str, Any]]]:
    """(name for the run or None, the case's own agent settings) for each run of the case."""
    if case.agent is not None:
        return [(None, dict(case.agent))]
    configs = case.metadata.get("agent_configs")
    if not isinstance(configs, list) or not configs:
        return [(None, {})]
    runs: list[tuple[str | None, dict[str, Any]]] = []
    for config in configs:
        ref = config.get("ref")
        if ref is not None:
            known = project.agents.get(str(ref))
            runs.append((str(ref), _given(known) if known else {}))
            continue
        settings = {
            key: config.get(key) for key in ("provider", "model", "system", "temperature", "max_tokens")
        }
        settings["max_steps"] = config.get("max_turns")
        runs.append((str(config.get("id") or config.get("name") or "agent"), settings))
    if len(runs) == 1:
        return [(None, runs[0][1])]
    return runs


def _servers(
    case: AgentCase, project: ProjectConfig, fallback: Mapping[str, ServerConfig]
) -> Mapping[str, ServerConfig]:
    if case.dialect == "toolproof":
        return dict(case.servers) if case.servers is not None else dict(fallback)
    own = case.metadata.get("servers")
    if case.dialect != "mcplab":
        return dict(fallback)
    entries = [*(case.metadata.get("mcp_servers") or []), *({"ref": label} for label in own or [])]
    if not entries:
        return dict(fallback)
    pool = _pool(case.metadata.get("server_pool"))
    found: dict[str, ServerConfig] = {}
    for entry in entries:
        if not isinstance(entry, dict):
            raise ValueError(f"mcp_servers: {entry!r} is not a server entry")
        ref = entry.get("ref")
        if ref is None:
            name = str(entry.get("id") or entry.get("name") or f"server{len(found) + 1}")
            found[name] = mcplab_server(entry)
        elif str(ref) in pool:
            found[str(ref)] = mcplab_server(pool[str(ref)])
        elif str(ref) in project.servers:
            found[str(ref)] = project.servers[str(ref)]
        else:
            raise ValueError(f"server {ref!r} is not defined (define it in toolproof.yaml under servers:)")
    return found


def _pool(value: Any) -> dict[str, dict[str, Any]]:
    """MCPLab's top-level server pool: a list of entries with `id`, or a map of id to entry."""
    if isinstance(value, dict):
        return {str(key): item for key, item in value.items() if isinstance(item, dict)}
    if isinstance(value, list):
        return {str(item.get("id") or item.get("name")): item for item in value if isinstance(item, dict)}
    return {}


def mcplab_server(entry: Mapping[str, Any]) -> ServerConfig:
    """An MCPLab server entry (`url`, `transport`, `headers`, `auth`; or a command) as a ServerConfig."""
    data = {key: value for key, value in entry.items() if key not in ("id", "name", "auth", "ref")}
    if "url" in data:
        transport = str(data.get("transport") or "http").lower()
        data["transport"] = Transport.SSE.value if transport == "sse" else Transport.HTTP.value
        data["headers"] = {**(data.get("headers") or {}), **_auth_headers(entry.get("auth"))}
    try:
        return ServerConfig.model_validate(data)
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(map(str, problem["loc"]))
        raise ValueError(
            f"server {entry.get('id') or entry.get('name')!r}: {where}: {problem['msg']}"
        ) from None


def _auth_headers(auth: Any) -> dict[str, str]:
    if not isinstance(auth, dict):
        return {}
    kind = auth.get("type")
    if kind == "bearer":
        token = f"${{{auth['env']}}}" if auth.get("env") else str(auth.get("token") or "")
        return {"Authorization": f"Bearer {token}"}
    if kind == "api_key":
        return {str(auth.get("header_name") or "X-Api-Key"): str(auth.get("value") or "")}
    raise ValueError(f"server auth type {kind!r} is not supported (bearer and api_key are)")
