"""What `toolproof eval` needs before anything runs: each agent's provider, the judge, and the secrets every
report and cassette masks. A problem that stops the command is a `SetupError`."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import ValidationError

from toolproof.core.sanitize import maskable, secret_values
from toolproof.load.project_file import ProviderSettings
from toolproof.load.script_file import ScriptError
from toolproof.providers.base import Provider, ProviderError
from toolproof.run.agent_plan import HTTP_AGENT, AgentSpec, Plan, Unplannable
from toolproof.run.agent_suite import case_target
from toolproof.run.judging import JudgeModel
from toolproof.run.providers import ProviderConfig, ProviderPool
from toolproof.run.recorded_settings import OfflineProvider, RecordedSettings
from toolproof.run.secrets import server_secrets
from toolproof.sources.http_target import target_secrets


class SetupError(ValueError):
    """A configuration problem that stops the command before anything runs."""


def provider_config(settings: ProviderSettings | AgentSpec, kind: str | None = None) -> ProviderConfig:
    """The provider configuration of agent or judge settings; the provider's own defaults for unset limits.
    Raises ValueError for settings no provider takes."""
    limits = {
        "max_concurrency": settings.max_concurrency,
        "max_retries": settings.max_retries,
        "timeout": settings.request_timeout,
    }
    try:
        return ProviderConfig(
            kind=kind or settings.provider,
            model=settings.model or "",
            base_url=settings.base_url,
            api_key_env=settings.api_key_env,
            script=settings.script,
            **{name: value for name, value in limits.items() if value is not None},
        )
    except ValidationError as error:
        problem = error.errors()[0]
        raise ValueError(f"provider {kind or settings.provider!r}: {problem['msg']}") from None


def make_providers(
    plans: list[Plan | Unplannable], pool: ProviderPool
) -> tuple[dict[AgentSpec, Provider], list[Plan | Unplannable]]:
    """Each distinct agent's provider, from the pool (agents with the same provider configuration share one,
    and its concurrency limit); a plan whose provider cannot be made becomes unplannable."""
    providers: dict[AgentSpec, Provider] = {}
    problems: dict[AgentSpec, str] = {}
    kept: list[Plan | Unplannable] = []
    for plan in plans:
        if not isinstance(plan, Plan) or plan.agent == HTTP_AGENT:
            kept.append(plan)
            continue
        if plan.agent not in providers and plan.agent not in problems:
            try:
                providers[plan.agent] = pool.get(provider_config(plan.agent))
            except (ValueError, ProviderError, ScriptError) as error:
                problems[plan.agent] = str(error)
        kept.append(Unplannable(plan.case, problems[plan.agent]) if plan.agent in problems else plan)
    return providers, kept


def make_judge(
    settings: ProviderSettings,
    agent_kind: str | None,
    pool: ProviderPool,
    replayed: RecordedSettings | None,
    judged: list[Plan],
) -> JudgeModel | None:
    """The judge of the judged plans: configured by `settings` (its provider, else the agent's
    `agent_kind`), or under `--replay` answered from the cassettes, where only its model needs to be known
    (as recorded, unless configured). None when no judge is configured."""
    if replayed is not None:
        model = settings.model or replayed.judge_model([plan.case for plan in judged])
        return JudgeModel(OfflineProvider(), model) if judged else None
    if settings.provider is None and settings.model is None:
        return None
    kind = settings.provider or agent_kind
    if kind is None:
        raise SetupError("--judge-model needs a judge provider: give --judge-provider")
    try:
        provider = pool.get(provider_config(settings, kind))
    except (ValueError, ProviderError, ScriptError) as error:
        raise SetupError(f"judge: {error}") from None
    return JudgeModel(provider, settings.model or "scripted")


def run_secrets(
    plans: list[Plan | Unplannable], environ: Mapping[str, str], judge_key_env: str | None
) -> set[str]:
    """What every report and cassette masks: secret-looking variables and server settings, the agents' and
    the judge's API keys (whatever their variables are called), target credentials."""
    found = secret_values(environ, {})
    for plan in plans:
        if not isinstance(plan, Plan):
            continue
        for server in plan.servers.values():
            found |= server_secrets(server, environ)
        if target := case_target(plan.case):
            found |= target_secrets(target, environ)
    key_envs = {judge_key_env, *(plan.agent.api_key_env for plan in plans if isinstance(plan, Plan))}
    keys = {environ.get(name, "") for name in key_envs if name}
    return found | {key for key in keys if maskable(key)}
