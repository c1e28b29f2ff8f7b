"""`toolproof load`: many concurrent tools/call requests against one server; the work is `probe.load`'s."""

from __future__ import annotations

import argparse
import json
import signal
import sys
from typing import Any

from toolproof.cli.options import duration_arg, jobs_arg
from toolproof.cli.probing import add_server_options, cannot_connect, connect_spec, usage
from toolproof.exit_codes import UsageError


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "load",
        help="load a server with concurrent tool calls: throughput, latency percentiles, errors, memory, CPU",
        description="Call one tool many times at once: --concurrency requests in flight on each of "
        "--sessions sessions (a server process each over stdio, a connection each over HTTP), after --warmup "
        "calls per session, for --requests requests or --duration. Reports throughput, latency "
        "percentiles (p50, p90, p95, p99, max) of the answered calls, errors by kind and, for stdio, the "
        "servers' peak resident memory and CPU time. Exit status: 0 done (and every --slo objective met), "
        "1 an objective not met, 2 usage error or the server cannot be started or reached.",
    )
    add_server_options(parser, reports=False)
    parser.add_argument("--tool", required=True, metavar="NAME", help="the tool to call")
    parser.add_argument(
        "--args", default="{}", metavar="JSON", help="its arguments, a JSON object (default {})"
    )
    parser.add_argument(
        "--concurrency",
        type=jobs_arg,
        default=1,
        metavar="N",
        help="requests in flight per session (default 1)",
    )
    parser.add_argument(
        "--sessions", type=jobs_arg, default=1, metavar="N", help="sessions at once (default 1)"
    )
    amount = parser.add_mutually_exclusive_group()
    amount.add_argument(
        "--duration", type=duration_arg, metavar="DURATION", help="measure this long, e.g. 30s (default 10s)"
    )
    amount.add_argument("--requests", type=jobs_arg, metavar="N", help="measure N requests in all")
    parser.add_argument(
        "--warmup", type=int, default=5, metavar="N", help="calls per session before measuring (default 5)"
    )
    parser.add_argument(
        "--slo",
        metavar="OBJECTIVES",
        help="objectives that set the exit status, e.g. 'p95<200ms,errors<1%%' (p50 p90 p95 p99 max, "
        "errors, rps; < <= > >=)",
    )
    parser.add_argument("--json", metavar="FILE", help="write the measurements as JSON to FILE ('-': stdout)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from toolproof import api
    from toolproof.core.writing import write_best_effort
    from toolproof.probe.load import LoadError, LoadPlan
    from toolproof.probe.load.slo import describe

    try:
        spec = connect_spec(args)
        arguments = _arguments(args.args)
        if args.warmup < 0:
            raise UsageError(f"--warmup must not be negative, got {args.warmup}")
        plan = LoadPlan(
            spec=spec,
            tool=args.tool,
            arguments=arguments,
            concurrency=args.concurrency,
            sessions=args.sessions,
            requests=args.requests,
            duration_s=args.duration,
            warmup=args.warmup,
        )
        result = api.load_server(plan, slo=args.slo, handle_signals=True)
    except UsageError as problem:
        return usage("load", str(problem))
    except LoadError as error:
        return cannot_connect("load", str(error), error.stderr)
    out = sys.stderr if args.json == "-" else sys.stdout
    print(result.report.table(), file=out)
    for objective in result.objectives:
        print(describe(objective, result.report), file=out)
    text = json.dumps(result.document(), indent=2) + "\n"
    if args.json == "-":
        sys.stdout.write(text)
    elif args.json:
        write_best_effort(args.json, text)
    if result.report.stopped_by is not None:
        from toolproof.run.interrupt import Interrupted

        return Interrupted(signal.Signals[result.report.stopped_by]).report("toolproof load")
    return result.exit_code


def _arguments(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(f"--args: not JSON: {error}") from None
    if not isinstance(value, dict):
        raise UsageError(f"--args: expected a JSON object, got {type(value).__name__}")
    return value
