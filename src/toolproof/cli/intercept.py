"""`toolproof intercept`: stand in for a stdio MCP server, record an agent's session, check its trajectory.

stdout is the agent's protocol channel: every report goes to stderr or to files.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from toolproof.cli.options import add_output_options, limit_arg, reports
from toolproof.exit_codes import ExitCode, UsageError

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


def run(args: argparse.Namespace) -> int:
    from toolproof import api
    from toolproof.cli.outcome import exit_status

    if args.json == "-":
        print(f"{_NAME}: --json -: stdout carries the MCP session; give a file name", file=sys.stderr)
        return ExitCode.USAGE
    try:
        result = api.intercept(
            args.server,
            args.trajectory,
            timeout=args.timeout or None,
            audit_log=args.audit_log,
            reports=reports(args, terminal_to_stderr=True),
        )
    except UsageError as problem:
        print(f"{_NAME}: {problem}", file=sys.stderr)
        return ExitCode.USAGE
    return exit_status(_NAME, result)
