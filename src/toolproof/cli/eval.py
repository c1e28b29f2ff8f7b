"""`toolproof eval`: run agent scenarios live (a model and the MCP servers of each case), check and judge."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from toolproof.cli.options import (
    add_output_options,
    add_protocol_option,
    add_resume_option,
    duration_arg,
    jobs_arg,
    reports,
    settle_json,
)
from toolproof.cli.outcome import exit_status
from toolproof.exit_codes import ExitCode, UsageError

PROVIDERS = ("openai", "anthropic", "scripted")


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {text!r}")
    return value


def _rates(text: str) -> dict[str, float]:
    """`N` (every provider) or `KIND=N,...` for --max-rps."""
    rates: dict[str, float] = {}
    for part in text.split(","):
        kind, _, number = part.strip().rpartition("=")
        if kind and kind not in PROVIDERS:
            raise argparse.ArgumentTypeError(f"unknown provider kind {kind!r} (use {', '.join(PROVIDERS)})")
        try:
            rate = float(number)
        except ValueError:
            rate = -1.0
        if not rate > 0:
            raise argparse.ArgumentTypeError(f"expected a number of requests a second > 0, got {number!r}")
        rates[kind or "*"] = rate
    return rates


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "eval",
        help="run agent scenarios with a model and MCP servers, and check them",
        description="Run every agent case (toolproof, MCPLab, Mibo or PromptKit files) through a model and "
        "the case's MCP servers, then check and judge the run. Settings come from toolproof.yaml (or "
        "--config); flags override it. Exit status: 0 all passed, 1 any failed, 2 usage or load error, 5 no "
        "case found.",
    )
    parser.add_argument("paths", nargs="*", type=Path, metavar="SCENARIOS", help="case files or directories")
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
    parser.add_argument(
        "--fixture", type=Path, metavar="DIR", help="fixture directory; each trial gets a copy as {{fixture}}"
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
    parser.add_argument(
        "--max-rps",
        type=_rates,
        metavar="N|KIND=N,...",
        help="each model provider (agent and judge) starts at most N requests a second, shared by every "
        "case of the run; or per kind, e.g. openai=5,anthropic=2 (others unlimited)",
    )
    parser.add_argument("-k", dest="select", metavar="PATTERN", help="only cases whose name or file matches")
    add_protocol_option(parser)
    add_resume_option(parser)
    add_output_options(parser, run_control=True)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from toolproof import api

    settle_json(args, "paths")
    if not args.paths:
        print("toolproof eval: no case paths given", file=sys.stderr)
        return ExitCode.USAGE
    try:
        result = api.evaluate(
            args.paths,
            config=args.config,
            provider=args.provider,
            model=args.model,
            base_url=args.base_url,
            api_key_env=args.api_key_env,
            script=args.script,
            max_steps=args.max_steps,
            judge_provider=args.judge_provider,
            judge_model=args.judge_model,
            judge_base_url=args.judge_base_url,
            judge_script=args.judge_script,
            skip_judge=args.skip_judge,
            servers=args.server,
            target=args.target,
            trials=args.trials,
            k=args.k,
            pass_threshold=args.pass_threshold,
            record=args.record,
            replay=args.replay,
            save_traces=args.save_traces,
            timeout=args.timeout,
            fixture=args.fixture,
            jobs=args.jobs,
            select=args.select,
            reports=reports(args),
            handle_signals=True,
            last_failed=args.last_failed,
            failed_first=args.failed_first,
            maxfail=args.maxfail or 0,
            shard=args.shard,
            max_rps=args.max_rps,
            resume=args.resume,
            protocol=args.protocol,
        )
    except UsageError as problem:
        print(f"toolproof eval: {problem}", file=sys.stderr)
        return ExitCode.USAGE
    return exit_status("toolproof eval", result)
