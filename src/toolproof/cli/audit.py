"""`toolproof audit`: call every tool once with valid arguments and classify how it answered."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.cli.options import add_jobs_option, output_dir_arg
from toolproof.cli.probing import COMMON_DIFFERENCES, add_server_options
from toolproof.exit_codes import UsageError

if TYPE_CHECKING:
    from toolproof.cli.probing import Reporter
    from toolproof.mcp.spec import ConnectSpec
    from toolproof.probe.audit import ToolAudit

_NAME = "audit"
DEFAULT_JOBS = 4

DIFFERENCES = (
    "Differences from mcp-assert 0.12.3: "
    "exit status 1 when any tool crashed, timed out or rejected valid input "
    "(mcp-assert's audit always exits 0); arguments are generated from the whole schema (enum, examples, "
    "default, format, bounds, nested objects) rather than placeholders; -32602 for arguments that match the "
    "schema is its own class, rejects-valid-input (mcp-assert: a crash). "
)


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        _NAME,
        help="call every tool once with valid arguments: healthy, crash, timeout, skipped",
        description="Call each tool once with arguments generated from its input schema and classify the "
        "answer: healthy (any result that is not an internal error), crash (the process exited, the "
        "connection broke, a JSON-RPC error, or isError with a traceback, panic or stack trace), timeout, "
        "rejects-valid-input (-32602 for schema-valid arguments), skipped (annotated destructive). Score = "
        "healthy / tested. Exit status: 0 all healthy, 1 any finding, 2 usage error or the server cannot "
        "be reached.",
        epilog=DIFFERENCES + COMMON_DIFFERENCES,
    )
    add_server_options(parser)
    parser.add_argument(
        "--include-writes", action="store_true", help="also call tools annotated destructive or not read-only"
    )
    add_jobs_option(
        parser,
        DEFAULT_JOBS,
        f"calls in flight at once on the server (default {DEFAULT_JOBS}); a call that may have crashed or "
        "hung it is made again alone, so every verdict is the one-at-a-time verdict",
    )
    parser.add_argument(
        "--output",
        type=output_dir_arg,
        metavar="DIR",
        help="write a passing toolproof case per healthy tool into DIR",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from toolproof.cli.probing import (
        Reporter,
        cannot_connect,
        connect_spec,
        run_async,
        secrets,
        source_path,
        usage,
    )
    from toolproof.mcp.errors import RequestFailed
    from toolproof.run.interrupt import Interrupted

    try:
        spec = connect_spec(args)
    except UsageError as error:
        return usage(_NAME, str(error))
    reporter = Reporter(args, f"toolproof audit {source_path(spec)}", secrets(spec))
    started = time.perf_counter()
    audits: list[ToolAudit] = []  # filled as each tool is audited: a stop by signal keeps what finished
    try:
        outcome = run_async(lambda: _audit(spec, args, reporter, audits))
    except RequestFailed as error:
        return cannot_connect(_NAME, error.failure.message, error.stderr)
    status = reporter.end(time.perf_counter() - started)
    _summary(args, audits)
    if args.output is not None:
        _write_cases(args.output, audits, spec)
    return outcome.report(f"toolproof {_NAME}") if isinstance(outcome, Interrupted) else status


async def _audit(
    spec: ConnectSpec, args: argparse.Namespace, reporter: Reporter, audits: list[ToolAudit]
) -> None:
    """Audit the tools, up to --jobs calls at once, into `audits`, reporting each in tool order as soon as
    it and every tool before it are done; `RequestFailed` when tools/list fails.

    Stray stdout lines go on the first tool reported after they appeared: those of the start and
    tools/list on the first tool; with calls in flight together the tool that caused a line cannot be
    told, so a line may land on a tool reported after the one during whose call it was written."""
    from toolproof.cli.probing import source_path
    from toolproof.mcp.stdio import stray_warning
    from toolproof.probe.audit import audit_result, audit_tools
    from toolproof.probe.connection import Prober
    from toolproof.report.ordering import InOrder

    source = source_path(spec)
    order: InOrder[ToolAudit] = InOrder()
    async with Prober(spec) as prober:
        tools = await prober.list_tools()
        reporter.start(len(tools))
        seen = 0  # how many of the prober's stray stdout lines are already on a result

        def done(index: int, audit: ToolAudit) -> None:
            nonlocal seen
            for ready in order.add(index, audit):
                position = len(audits)
                audits.append(ready)
                result = audit_result(ready, source)
                stray = stray_warning(prober.stray_stdout[seen:])
                seen = len(prober.stray_stdout)
                if stray:
                    result = result.model_copy(update={"warnings": (*result.warnings, stray)})
                reporter.started(ready.tool, position, len(tools))
                reporter.finished(result, position, len(tools))

        await audit_tools(prober, tools, include_writes=args.include_writes, jobs=args.jobs, done=done)


def _summary(args: argparse.Namespace, audits: list[ToolAudit]) -> None:
    from collections import Counter

    from toolproof.cli.probing import say, terminal_stream
    from toolproof.probe.audit import score

    healthy, tested = score(audits)
    percent = f"{healthy * 100 // tested}%" if tested else "n/a"
    counts = Counter(audit.verdict.value for audit in audits)
    classes = ", ".join(f"{count} {name}" for name, count in sorted(counts.items()))
    say(f"audit score: {percent} ({healthy}/{tested} tested tools healthy; {classes})", terminal_stream(args))


def _write_cases(directory: Path, audits: list[ToolAudit], spec: ConnectSpec) -> None:
    from toolproof.core.gofmt import counted
    from toolproof.probe.audit import healthy_case
    from toolproof.probe.cases import write_cases
    from toolproof.probe.verdicts import CallClass

    cases = {audit.tool: healthy_case(audit, spec) for audit in audits if audit.verdict is CallClass.HEALTHY}
    written = write_cases(directory, cases)
    print(f"audit: wrote {counted(len(written), 'case')} to {directory}", file=sys.stderr)
