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
    given_server,
    load_items,
    server_options,
    suite_paths,
    with_server,
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


def snapshot_file_for(paths: list[Path], output: Path | None) -> Path:
    if output is not None:
        return output
    from toolproof.author.snapshot_file import snapshot_path

    first = paths[0]
    return snapshot_path(first if first.is_dir() else first.parent)


def snapshot(args: argparse.Namespace) -> int:
    from toolproof.api import exit_code_of
    from toolproof.author.snapshot import run_snapshots
    from toolproof.author.snapshot_file import SnapshotFileError, read_snapshots, render_snapshots
    from toolproof.cli.options import reports
    from toolproof.core.writing import write_atomic
    from toolproof.model.server_case import Case
    from toolproof.run.interrupt import Interrupted, run_until_signal
    from toolproof.run.secrets import run_secrets

    try:
        paths = suite_paths(args)
        options = server_options(args)
        items = with_server(load_items(paths), given_server(args))
        file = snapshot_file_for(paths, args.output)
        saved = read_snapshots(file)
    except (UsageError, SnapshotFileError) as error:
        return fail("snapshot", error)
    cases = [item for item in items if isinstance(item, Case)]
    sink = reports(args).sink(run_secrets([case.server for case in cases], options.environ))
    outcome = run_until_signal(
        lambda: run_snapshots(items, saved, file, options, update=args.update, jobs=args.jobs, sink=sink)
    )
    if isinstance(outcome, Interrupted):
        return outcome.report("toolproof snapshot")
    out = sys.stderr if args.json == "-" else sys.stdout
    if args.update:
        try:
            write_atomic(file, render_snapshots(outcome.snapshots))
        except OSError as error:
            return fail("snapshot", error)
        recorded = len(outcome.snapshots.snapshots or [])
        print(
            f"snapshots: {recorded} recorded ({outcome.new} new, {outcome.changed} changed) in {file}",
            file=out,
        )
    return exit_code_of(outcome.results)
