"""`toolproof snapshot`: record each case's answer, or compare it with the recorded one."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from toolproof.cli.author_options import (
    UsageError,
    add_command,
    add_server_options,
    add_suite_options,
    fail,
    suite_paths,
    suite_server,
)
from toolproof.cli.options import add_output_options, add_subscription_wait_option


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = add_command(
        commands,
        "snapshot",
        help="record golden answers, or compare each case's answer with the recorded one",
        description="Compare every case's answer (and each server's tools/list) with <suite>/.snapshots.json "
        "(mcp-assert's file), masking dates, UUIDs, hex ids, temporary paths and the case's snapshot_masks. "
        "Exit status: 0 all matched (or recorded), 1 an answer differs or has no snapshot, 2 a case could "
        "not run, or a usage or load error.",
    )
    add_suite_options(parser)
    add_server_options(parser, server_help="override every case's server: a command, or a URL (--transport)")
    add_subscription_wait_option(parser)
    parser.add_argument("--update", action="store_true", help="record the answers instead of comparing them")
    parser.add_argument(
        "--output",
        type=Path,
        metavar="FILE",
        help="the snapshot file (default: .snapshots.json in the first suite directory)",
    )
    add_output_options(parser)
    parser.set_defaults(handler=snapshot)


def snapshot(args: argparse.Namespace) -> int:
    from toolproof import api
    from toolproof.cli.options import reports
    from toolproof.cli.outcome import exit_status

    try:
        result = api.snapshot(
            suite_paths(args),
            update=args.update,
            output=args.output,
            server=args.server,
            jobs=args.jobs,
            reports=reports(args),
            **suite_server(args),
        )
    except UsageError as error:
        return fail("snapshot", error)
    if args.update and result.stopped_by is None:
        out = sys.stderr if args.json == "-" else sys.stdout
        print(f"snapshots: {result.recorded} recorded ({result.new} new, {result.changed} changed) in "
              f"{result.file}", file=out)
    return exit_status("toolproof snapshot", result)
