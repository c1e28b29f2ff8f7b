"""`toolproof eval`: run agent scenarios live (a model and the MCP servers of each case), check and judge."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolproof.cli.options import add_output_options, duration_arg, jobs_arg

if TYPE_CHECKING:
    from toolproof.load.project_file import ProjectConfig, ProviderSettings
    from toolproof.model.server_case import ServerConfig
    from toolproof.model.target import HttpTarget

DEFAULT_TIMEOUT_S = 300.0
PROVIDERS = ("openai", "anthropic", "scripted")


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {text!r}")
    return value


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "eval",
        help="run agent scenarios with a model and MCP servers, and check them",
        description="Run every agent case (toolproof, MCPLab, Mibo or PromptKit files) through a model and "
        "the case's MCP servers, then check and judge the run. Settings come from toolproof.yaml (or "
        "--config); flags override it. Exit status: 0 all passed, 1 any failed, 2 usage or load error.",
    )
    parser.add_argument("paths", nargs="+", type=Path, metavar="SCENARIOS", help="case files or directories")
    parser.add_argument(
        "--config", type=Path, metavar="FILE", help="project file (default: ./toolproof.yaml)"
    )
    agent = parser.add_argument_group("agent")
    agent.add_argument("--provider", choices=PROVIDERS, help="the agent's model provider")
    agent.add_argument("--model", metavar="M", help="the agent's model")
    agent.add_argument("--base-url", metavar="URL", help="an OpenAI- or Anthropic-compatible endpoint")
    agent.add_argument("--api-key-env", metavar="VAR", help="environment variable holding the API key")
    agent.add_argument("--script", type=Path, metavar="FILE", help="script of the scripted provider")
    agent.add_argument(
        "--max-steps", type=jobs_arg, metavar="N", help="model calls per user turn (default 30)"
    )
    judge = parser.add_argument_group("judge")
    judge.add_argument("--judge-provider", choices=PROVIDERS, help="the judge's provider")
    judge.add_argument("--judge-model", metavar="M", help="the judge's model")
    judge.add_argument("--judge-base-url", metavar="URL", help="the judge's endpoint")
    judge.add_argument("--judge-script", type=Path, metavar="FILE", help="script of a scripted judge")
    judge.add_argument(
        "--skip-judge", action="store_true", help="report judge checks as not evaluated (no judge needed)"
    )
    parser.add_argument(
        "--server",
        action="append",
        default=[],
        metavar="[NAME=]CMD",
        help="a stdio MCP server for cases that name none, e.g. 'notes=python notes.py' (may repeat)",
    )
    parser.add_argument(
        "--target",
        type=Path,
        metavar="FILE",
        help="an HTTP agent (a target file) for cases that name no servers and no target",
    )
    parser.add_argument("--trials", type=jobs_arg, metavar="N", help="run each case N times (default 1)")
    parser.add_argument(
        "--k", dest="k", type=jobs_arg, metavar="K", help="k of pass@k and pass^k (default N)"
    )
    parser.add_argument(
        "--pass-threshold",
        type=_share,
        metavar="X",
        help="share of trials that must pass for the case to pass (default 1: all)",
    )
    cassettes = parser.add_mutually_exclusive_group()
    cassettes.add_argument("--record", type=Path, metavar="DIR", help="record every model and tool exchange")
    cassettes.add_argument(
        "--replay", type=Path, metavar="DIR", help="replay recorded runs: no model, server or judge needed"
    )
    parser.add_argument(
        "--save-traces",
        type=Path,
        metavar="DIR",
        help="write each run's transcript to DIR, for `toolproof check --trace DIR` later",
    )
    parser.add_argument("--timeout", type=duration_arg, metavar="DURATION", help="per trial (default 5m)")
    parser.add_argument(
        "-j", "--jobs", type=jobs_arg, metavar="N", help="trials run at once (default: cores)"
    )
    parser.add_argument("-k", dest="select", metavar="PATTERN", help="only cases whose name or file matches")
    add_output_options(parser)
    parser.set_defaults(handler=run)


class _Usage(Exception):
    """A usage or configuration problem that stops the command before anything runs (exit status 2)."""


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except _Usage as problem:
        print(f"toolproof eval: {problem}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    import anyio

    from toolproof.cli.interrupt import Interrupted, run_until_signal
    from toolproof.cli.reporting import build_sinks, prioritised, verdict
    from toolproof.load import SelectionError
    from toolproof.load.agent_cases import CASE_SUFFIXES, load_agent_cases
    from toolproof.load.walk import files_under
    from toolproof.run.agent_plan import Plan, plan_cases
    from toolproof.run.agent_suite import EvalOptions, run_agent_suite
    from toolproof.run.eval_setup import SetupError, make_judge, make_providers, run_secrets
    from toolproof.run.providers import ProviderPool
    from toolproof.run.recorded_settings import RecordedSettings
    from toolproof.run.trace_suite import has_judge
    from toolproof.sources.options import ServerOptions

    project, project_path = _project(args.config)
    target = _fallback_target(args, project)
    settings = {path.resolve() for path in _settings_files(args, project, project_path)}
    try:
        files = [
            path
            for given in args.paths
            for path in files_under(given, CASE_SUFFIXES)
            if path.resolve() not in settings
        ]
    except FileNotFoundError as error:
        raise _Usage(f"{error.args[0]}: no such file or directory") from None
    cases, errors = load_agent_cases(files)
    try:
        cases = _selected(cases, args.select)
    except SelectionError as error:
        raise _Usage(str(error)) from None
    cases = prioritised(cases, lambda case: str(case.node_id), args)
    flags = {
        "provider": args.provider,
        "model": args.model,
        "base_url": args.base_url,
        "api_key_env": args.api_key_env,
        "script": args.script.resolve() if args.script else None,
        "max_steps": args.max_steps,
    }
    replayed = RecordedSettings(args.replay.resolve()) if args.replay else None  # no provider, no key
    plans = plan_cases(
        cases,
        project,
        flags,
        _servers(args.server),
        target=target,
        recorded=replayed.agent if replayed else None,
    )
    trials = args.trials or project.trials or 1
    k = args.k or project.k
    if k is not None and k > trials:
        raise _Usage(f"--k {k} is more than the {trials} trial(s) run")
    environ = dict(os.environ)
    pool = ProviderPool(environ)
    providers, planned = ({}, plans) if replayed else make_providers(plans, pool)
    judged = [plan for plan in planned if isinstance(plan, Plan) and has_judge(plan.case)]
    judge_settings = _judge_settings(args, project)
    judge = None
    if not args.skip_judge:
        try:
            judge = make_judge(judge_settings, args.provider or project.provider, pool, replayed, judged)
        except SetupError as error:
            raise _Usage(str(error)) from None
    if judged and judge is None and not args.skip_judge:
        names = [plan.case.name for plan in judged]
        raise _Usage(
            f"judge checks need a judge ({', '.join(names[:3])}{' and more' if len(names) > 3 else ''}): "
            "give --judge-provider/--judge-model or judge: in toolproof.yaml, or --skip-judge"
        )
    options = EvalOptions(
        server=ServerOptions(environ=environ, timeout_s=args.timeout or project.timeout or DEFAULT_TIMEOUT_S),
        providers=providers,
        judge=judge,
        trials=trials,
        k=k,
        pass_threshold=args.pass_threshold
        if args.pass_threshold is not None
        else project.pass_threshold or 1.0,
        record=args.record.resolve() if args.record else None,
        replay=args.replay.resolve() if args.replay else None,
        save_traces=args.save_traces.resolve() if args.save_traces else None,
        secrets=frozenset(run_secrets(planned, environ, judge_settings.api_key_env)),
    )
    jobs = args.jobs or project.jobs or os.cpu_count() or 2
    sink = build_sinks(args, options.secrets)

    async def main() -> list[Any]:
        try:
            items = [*errors, *planned]
            return await run_agent_suite(items, options, jobs=jobs, sink=sink, maxfail=args.maxfail or 0)
        finally:
            with anyio.CancelScope(shield=True):
                await pool.aclose()

    outcome = run_until_signal(main)
    if isinstance(outcome, Interrupted):
        return outcome.report("toolproof eval")
    return verdict(args, outcome)


def _project(path: Path | None) -> tuple[ProjectConfig, Path | None]:
    from toolproof.load.project_file import PROJECT_FILE, ProjectConfig, load_project

    if path is None:
        default = Path(PROJECT_FILE)
        if not default.is_file():
            return ProjectConfig(), None
        path = default
    elif not path.is_file():
        raise _Usage(f"--config {path}: no such file")
    config, errors = load_project(path)
    if errors:
        raise _Usage("\n".join(str(error) for error in errors))
    return config, path


def _fallback_target(args: argparse.Namespace, project: ProjectConfig) -> HttpTarget | None:
    """The HTTP agent of cases that name no servers and no target: `--target FILE`, else the project file's
    `target:` unless `--server` gives those cases servers instead."""
    from toolproof.load.target import load_target_file

    if args.target is None:
        return None if args.server else project.target
    if args.server:
        raise _Usage("--target and --server both say how cases that name none reach their agent: give one")
    if not args.target.is_file():
        raise _Usage(f"--target {args.target}: no such file")
    loaded = load_target_file(args.target)
    if isinstance(loaded, list):
        raise _Usage("\n".join(str(error) for error in loaded))
    return loaded


def _settings_files(args: argparse.Namespace, project: ProjectConfig, path: Path | None) -> list[Path]:
    """The project file, the target file and the scripts in use: not cases, even among the cases."""
    found = [path, args.target, args.script, args.judge_script, project.script]
    found += [project.judge.script if project.judge else None]
    found += [agent.script for agent in project.agents.values()]
    return [each for each in found if each is not None]


def _selected(cases: list[Any], pattern: str | None) -> list[Any]:
    """The cases whose node id (`file::name`) matches `pattern`, as `toolproof run -k` selects."""
    from toolproof.load import select

    chosen: list[Any] = select(cases, pattern)
    return chosen


def _servers(given: list[str]) -> dict[str, ServerConfig]:
    """`--server [NAME=]CMD` values as stdio servers (named server, server2, ... when unnamed)."""
    from toolproof.model.server_case import ServerConfig

    found: dict[str, ServerConfig] = {}
    for text in given:
        name, _, command = text.partition("=") if "=" in text.split(" ", 1)[0] else ("", "", text)
        try:
            words = shlex.split(command)
        except ValueError as error:
            raise _Usage(f"--server {text!r}: {error}") from None
        if not words:
            raise _Usage(f"--server {text!r}: no command")
        name = name or ("server" if not found else f"server{len(found) + 1}")
        found[name] = ServerConfig(command=words[0], args=words[1:])
    return found


def _judge_settings(args: argparse.Namespace, project: ProjectConfig) -> ProviderSettings:
    """The judge's settings: the project file's `judge:` with the judge flags over it."""
    from toolproof.load.project_file import ProviderSettings

    flags = {
        "provider": args.judge_provider,
        "model": args.judge_model,
        "base_url": args.judge_base_url,
        "script": args.judge_script.resolve() if args.judge_script else None,
    }
    given = project.judge or ProviderSettings()
    return given.model_copy(update={key: value for key, value in flags.items() if value is not None})
