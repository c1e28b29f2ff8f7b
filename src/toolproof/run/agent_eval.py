"""`toolproof eval` below the command line: settings from flags and the project file, the cases, their
plans, providers and judge, then the run. A problem that stops it before anything runs is a `UsageError`."""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.exit_codes import UsageError

if TYPE_CHECKING:
    from toolproof.load.collect import Collected
    from toolproof.load.project_file import ProjectConfig, ProviderSettings
    from toolproof.model.events import Sink
    from toolproof.model.result import CaseResult
    from toolproof.model.scenario import AgentCase
    from toolproof.model.server_config import ServerConfig
    from toolproof.model.target import HttpTarget
    from toolproof.run.interrupt import Interrupted
    from toolproof.sources.options import Protocol

DEFAULT_TIMEOUT_S = 300.0


@dataclass(frozen=True)
class ModelFlags:
    """A model's settings as flags give them (None: the project file's, else the default)."""

    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    script: Path | None = None
    max_steps: int | None = None


@dataclass(frozen=True)
class EvalRequest:
    """Everything `toolproof eval` is asked to do; None means "as the project file says, else default"."""

    collect: Callable[[frozenset[Path]], Collected[AgentCase]]  # the cases (`load/collect.py`), less files
    config: Path | None = None
    agent: ModelFlags = field(default_factory=ModelFlags)
    judge: ModelFlags = field(default_factory=ModelFlags)
    skip_judge: bool = False
    servers: Sequence[str] = ()
    target: Path | None = None
    trials: int | None = None
    k: int | None = None
    pass_threshold: float | None = None
    record: Path | None = None
    replay: Path | None = None
    save_traces: Path | None = None
    timeout_s: float | None = None
    fixture: Path | None = None
    jobs: int | None = None
    environ: Mapping[str, str] | None = None
    maxfail: int = 0
    max_rps: Mapping[str, float] | None = None  # --max-rps: requests a second per provider kind ("*": any)
    protocol: Protocol = "legacy"  # --protocol, as the SDK's connection mode


def run_eval(
    request: EvalRequest,
    sink_for: Callable[[frozenset[str], Collected[AgentCase]], Sink],
    *,
    handle_signals: bool,
) -> list[CaseResult] | Interrupted:
    """Collect (`request.collect`), plan and run every case of the request; `sink_for(secrets, collected)`
    gives the reports' sink.
    Raises UsageError for a problem that stops the run before anything runs."""
    import anyio

    from toolproof.run.agent_plan import Plan, plan_cases
    from toolproof.run.agent_suite import EvalOptions, run_agent_suite
    from toolproof.run.eval_setup import SetupError, make_judge, make_providers, run_secrets
    from toolproof.run.interrupt import run_until_signal
    from toolproof.run.providers import ProviderPool
    from toolproof.run.recorded_settings import RecordedSettings
    from toolproof.run.trace_suite import has_judge
    from toolproof.sources.options import ServerOptions

    project, project_path = _project(request.config)
    target = _fallback_target(request, project)
    settings = {path.resolve() for path in _settings_files(request, project, project_path)}
    collected = request.collect(frozenset(settings))
    errors, cases = collected.errors, collected.cases
    agent = request.agent
    flags = {
        "provider": agent.provider,
        "model": agent.model,
        "base_url": agent.base_url,
        "api_key_env": agent.api_key_env,
        "script": agent.script.resolve() if agent.script else None,
        "max_steps": agent.max_steps,
    }
    replayed = RecordedSettings(request.replay.resolve()) if request.replay else None  # no provider, no key
    plans = plan_cases(
        cases,
        project,
        flags,
        _servers(request.servers),
        target=target,
        recorded=replayed.agent if replayed else None,
    )
    trials = request.trials or project.trials or 1
    k = request.k or project.k
    if k is not None and k > trials:
        raise UsageError(f"--k {k} is more than the {trials} trial(s) run")
    environ = dict(os.environ if request.environ is None else request.environ)
    pool = ProviderPool(environ, max_rps=request.max_rps)
    providers, planned = ({}, plans) if replayed else make_providers(plans, pool)
    judged = [plan for plan in planned if isinstance(plan, Plan) and has_judge(plan.case)]
    judge_settings = _judge_settings(request.judge, project)
    judge = None
    if not request.skip_judge:
        try:
            judge = make_judge(judge_settings, agent.provider or project.provider, pool, replayed, judged)
        except SetupError as error:
            raise UsageError(str(error)) from None
    if judged and judge is None and not request.skip_judge:
        names = [plan.case.name for plan in judged]
        raise UsageError(
            f"judge checks need a judge ({', '.join(names[:3])}{' and more' if len(names) > 3 else ''}): "
            "give --judge-provider/--judge-model or judge: in toolproof.yaml, or --skip-judge"
        )
    threshold = request.pass_threshold
    options = EvalOptions(
        server=ServerOptions(
            environ=environ,
            fixture=_fixture(request.fixture),
            timeout_s=request.timeout_s or project.timeout or DEFAULT_TIMEOUT_S,
            protocol=request.protocol,
        ),
        providers=providers,
        judge=judge,
        trials=trials,
        k=k,
        pass_threshold=threshold if threshold is not None else project.pass_threshold or 1.0,
        record=request.record.resolve() if request.record else None,
        replay=request.replay.resolve() if request.replay else None,
        save_traces=request.save_traces.resolve() if request.save_traces else None,
        secrets=frozenset(run_secrets(planned, environ, judge_settings.api_key_env)),
    )
    jobs = request.jobs or project.jobs or os.cpu_count() or 2
    sink = sink_for(options.secrets, collected)

    async def main() -> list[CaseResult]:
        try:
            return await run_agent_suite(
                [*errors, *planned], options, jobs=jobs, sink=sink, maxfail=request.maxfail
            )
        finally:
            with anyio.CancelScope(shield=True):
                await pool.aclose()

    return run_until_signal(main) if handle_signals else anyio.run(main)


def _project(path: Path | None) -> tuple[ProjectConfig, Path | None]:
    from toolproof.load.project_file import ProjectConfig, load_project
    from toolproof.load.shapes import PROJECT_FILE

    if path is None:
        default = Path(PROJECT_FILE)
        if not default.is_file():
            return ProjectConfig(), None
        path = default
    elif not path.is_file():
        raise UsageError(f"--config {path}: no such file")
    config, errors = load_project(path)
    if errors:
        raise UsageError("\n".join(str(error) for error in errors))
    return config, path


def _fallback_target(request: EvalRequest, project: ProjectConfig) -> HttpTarget | None:
    """The HTTP agent of cases that name no servers and no target: `--target FILE`, else the project file's
    `target:` unless `--server` gives those cases servers instead."""
    from toolproof.load.target import load_target_file

    if request.target is None:
        return None if request.servers else project.target
    if request.servers:
        raise UsageError(
            "--target and --server both say how cases that name none reach their agent: give one"
        )
    if not request.target.is_file():
        raise UsageError(f"--target {request.target}: no such file")
    loaded = load_target_file(request.target)
    if isinstance(loaded, list):
        raise UsageError("\n".join(str(error) for error in loaded))
    return loaded


def _settings_files(request: EvalRequest, project: ProjectConfig, path: Path | None) -> list[Path]:
    """The project file, the target file and the scripts in use: not cases, even among the cases."""
    found = [path, request.target, request.agent.script, request.judge.script, project.script]
    found += [project.judge.script if project.judge else None]
    found += [agent.script for agent in project.agents.values()]
    return [each for each in found if each is not None]


def _servers(given: Sequence[str]) -> dict[str, ServerConfig]:
    """`--server [NAME=]CMD` values as stdio servers (named server, server2, ... when unnamed)."""
    from toolproof.model.server_config import ServerConfig

    found: dict[str, ServerConfig] = {}
    for text in given:
        name, _, command = text.partition("=") if "=" in text.split(" ", 1)[0] else ("", "", text)
        try:
            words = shlex.split(command)
        except ValueError as error:
            raise UsageError(f"--server {text!r}: {error}") from None
        if not words:
            raise UsageError(f"--server {text!r}: no command")
        name = name or ("server" if not found else f"server{len(found) + 1}")
        found[name] = ServerConfig(command=words[0], args=words[1:])
    return found


def _judge_settings(flags: ModelFlags, project: ProjectConfig) -> ProviderSettings:
    """The judge's settings: the project file's `judge:` with the judge flags over it."""
    from toolproof.load.project_file import ProviderSettings

    given = {
        "provider": flags.provider,
        "model": flags.model,
        "base_url": flags.base_url,
        "script": flags.script.resolve() if flags.script else None,
    }
    settings = project.judge or ProviderSettings()
    return settings.model_copy(update={key: value for key, value in given.items() if value is not None})


def _fixture(path: Path | None) -> Path | None:
    """The fixture directory each trial's servers get a copy of, resolved; a path that is no directory is a
    usage error."""
    if path is not None and not path.is_dir():
        raise UsageError(f"--fixture {path}: not a directory")
    return path.resolve() if path is not None else None
