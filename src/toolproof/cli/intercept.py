"""`toolproof intercept`: stand in for a stdio MCP server, record an agent's session, check its trajectory.

stdout is the agent's protocol channel: every report goes to stderr or to files.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.cli.options import add_output_options, limit_arg, reports
from toolproof.exit_codes import ExitCode

if TYPE_CHECKING:
    from toolproof.model.result import CaseResult
    from toolproof.model.server_case import Case
    from toolproof.sources.intercept import Interception

_NAME = "toolproof intercept"


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "intercept",
        help="proxy an agent's live stdio session with a server and check its tool calls",
        description="Run in place of a stdio MCP server: start the real one (--server), pass every byte "
        "between the agent (this process's stdin and stdout) and it unchanged, record the agent's "
        "tools/call requests, and when the session ends check them against the trajectory: case of "
        "--trajectory. The verdict goes to stderr. Exit status: 0 passed, 1 failed, 2 usage or load error, "
        "128 + the signal number when stopped by SIGINT, SIGTERM or SIGHUP (after the verdict).",
    )
    parser.add_argument(
        "--server", required=True, metavar="CMD", help='the real server, e.g. --server "node dist/index.js"'
    )
    parser.add_argument(
        "--trajectory",
        required=True,
        type=Path,
        metavar="FILE",
        help="a case file with trajectory: checks (its first case is used; trace/audit_log are ignored)",
    )
    parser.add_argument(
        "--timeout",
        type=limit_arg,
        default=0.0,
        metavar="DURATION",
        help="end the session after this long, e.g. 5m (default 0: no limit)",
    )
    parser.add_argument(
        "--audit-log", type=Path, metavar="OUT", help="write the recorded calls as a JSONL audit log"
    )
    add_output_options(parser, json_to_stdout=False)
    parser.set_defaults(handler=run)


def _usage(message: str) -> int:
    print(f"{_NAME}: {message}", file=sys.stderr)
    return ExitCode.USAGE


def run(args: argparse.Namespace) -> int:
    if args.json == "-":
        return _usage("--json -: stdout carries the MCP session; give a file name")
    try:
        command = shlex.split(args.server)
    except ValueError as error:
        return _usage(f"--server: {error}")
    if not command:
        return _usage("--server: no command given")
    case = _trajectory_case(args)
    if isinstance(case, int):
        return case
    session = _proxy(command, args.timeout or None)
    if isinstance(session, str):
        return _usage(f"--server: {session}")
    return _conclude(case, session, args)


def _trajectory_case(args: argparse.Namespace) -> Case | int:
    """The file's first case when it loads and is a trajectory; else the exit status, after saying why."""
    from toolproof.load import LoadError, load_file
    from toolproof.model.server_case import TrajectoryBlock
    from toolproof.run.load_errors import load_error_results

    items = load_file(args.trajectory)
    errors = [item for item in items if isinstance(item, LoadError)]
    if errors:
        return _report(load_error_results(errors), args, set())
    case = items[0] if items else None
    if case is None or isinstance(case, LoadError):
        return _usage(f"{args.trajectory}: no case in the file")
    if not isinstance(case.block, TrajectoryBlock):
        return _usage(
            f"{args.trajectory}:{case.source.line}: {case.name!r} has no trajectory: checks "
            f"(its block is {case.block.kind})"
        )
    return case


def _proxy(command: list[str], timeout_s: float | None) -> Interception | str:
    """Run the session on this process's stdin and stdout; a server that cannot start gives the reason."""
    import anyio

    from toolproof.mcp.errors import SpawnFailed
    from toolproof.mcp.process import reap_strays
    from toolproof.sources.intercept import FdReader, FdWriter, intercept

    agent_in, agent_out = FdReader(sys.stdin.fileno()), FdWriter(sys.stdout.fileno())
    try:
        return anyio.run(
            lambda: intercept(command, dict(os.environ), agent_in, agent_out, timeout_s=timeout_s)
        )
    except SpawnFailed as error:
        return str(error)
    finally:
        agent_out.restore()
        reap_strays()


def _conclude(case: Case, session: Interception, args: argparse.Namespace) -> int:
    """Note how the session ended, write the audit log, report the verdict; return the exit status (128 +
    the signal number when a stop signal ended the session, as `toolproof run` does)."""
    from toolproof.core.writing import warn, write_best_effort
    from toolproof.run.interrupt import Interrupted
    from toolproof.run.secrets import run_secrets
    from toolproof.run.trajectory import intercepted_verdict
    from toolproof.sources.intercept import audit_log

    note = session.note()
    if note:
        warn(f"intercept: {note}")
    if args.audit_log is not None:
        write_best_effort(args.audit_log, audit_log(session.calls))
    result = intercepted_verdict(case, session, os.environ)
    status = _report([result], args, run_secrets([case.server], os.environ))
    return status if session.stop_signal is None else Interrupted(session.stop_signal).report(_NAME)


def _report(results: list[CaseResult], args: argparse.Namespace, secrets: set[str]) -> int:
    from toolproof.api import exit_code_of, report_results

    sink = reports(args, terminal_to_stderr=True).sink(secrets)
    report_results(results, sink, _NAME, sum(result.duration_s for result in results))
    return exit_code_of(results)
