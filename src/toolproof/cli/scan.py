"""`toolproof scan`: the security scan of what servers tell the model."""

from __future__ import annotations

import argparse
from pathlib import Path

from toolproof.cli.probing import add_server_options
from toolproof.exit_codes import UsageError

_NAME = "scan"


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        _NAME,
        help="scan servers for poisoned descriptions, hidden text, shadowing, rug pulls and toxic flows",
        description="List each server's tools, instructions, prompts and resources, call its benign tools, "
        "and check all of it for text aimed at the model (S1xx), risky parameters (S2xx), changes against "
        "the --pin lock file or within the session (S3xx) and toxic flows across the servers (S501). "
        "Deterministic: no model is asked. Exit status: 0 nothing at or above --fail-on, 1 findings at or "
        "above it, 2 usage error or a server that cannot be reached.",
        conflict_handler="resolve",
    )
    add_server_options(parser)
    parser.add_argument(
        "--server",
        action="append",
        required=True,
        metavar="CMD|URL",
        help="a server to scan (repeat for several: shadowing and toxic flows are found across them): a "
        "command, split as a shell would but run without one, or the URL of a running server",
    )
    parser.add_argument(
        "--pin",
        type=Path,
        metavar="FILE",
        help="lock file of each server's tools: written on first use, "
        "then every change against it is a finding",
    )
    parser.add_argument("--update", action="store_true", help="re-pin: write the --pin file from this scan")
    parser.add_argument("--sarif", type=Path, metavar="FILE", help="write the findings as SARIF 2.1.0")
    parser.add_argument(
        "--fail-on",
        choices=("error", "warning"),
        default="error",
        help="the lowest severity that fails the scan (default error)",
    )
    parser.add_argument(
        "--no-calls", action="store_true", help="do not call the benign tools (no response scanning)"
    )
    judge = parser.add_argument_group("judge (optional: the scan itself asks no model)")
    judge.add_argument("--judge", metavar="MODEL", help="a model grades each text finding in its context")
    judge.add_argument(
        "--judge-provider",
        choices=("openai", "anthropic", "scripted"),
        help="the judge's provider (default: anthropic for a claude model, else openai)",
    )
    judge.add_argument("--judge-script", type=Path, metavar="FILE", help="script of a scripted judge")
    cassettes = judge.add_mutually_exclusive_group()
    cassettes.add_argument("--record", type=Path, metavar="DIR", help="record the judge's exchanges")
    cassettes.add_argument(
        "--replay", type=Path, metavar="DIR", help="answer the judge from --record's cassette"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from toolproof.api import scan
    from toolproof.cli.options import reports
    from toolproof.cli.probing import cannot_connect, connect_spec, say, terminal_stream, usage

    if args.update and args.pin is None:
        return usage(_NAME, "--update needs --pin FILE")
    if args.judge is None and (args.judge_provider or args.judge_script or args.record or args.replay):
        return usage(_NAME, "--judge-provider, --judge-script, --record and --replay need --judge MODEL")
    try:
        specs = [
            connect_spec(argparse.Namespace(**{**vars(args), "server": server})) for server in args.server
        ]
        result = scan(
            specs,
            pin=args.pin,
            update=args.update,
            sarif=args.sarif,
            fail_on=args.fail_on,
            call_tools=not args.no_calls,
            reports=reports(args),
            judge=args.judge,
            judge_provider=args.judge_provider,
            judge_script=args.judge_script,
            record=args.record,
            replay=args.replay,
        )
    except UsageError as error:
        return usage(_NAME, str(error))
    if result.stopped_by is not None:
        from toolproof.run.interrupt import Interrupted

        Interrupted(result.stopped_by).report("toolproof scan")
    for server in result.unreached:
        cannot_connect(_NAME, f"{server.server}: {server.message}", server.stderr)
    errors = sum(1 for finding in result.findings if finding.severity.value == "error")
    tools = sum(len(listing.tools) for listing in result.listings)
    counts = (
        (len(result.listings), "server"),
        (tools, "tool"),
        (errors, "error"),
        (len(result.findings) - errors, "warning"),
    )
    pinned = f", pinned to {result.pinned}" if result.pinned is not None else ""
    line = ", ".join(f"{count} {word}{'' if count == 1 else 's'}" for count, word in counts)
    say(f"scan: {line}{pinned}", terminal_stream(args))
    return result.exit_code
