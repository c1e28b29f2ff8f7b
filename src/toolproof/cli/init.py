"""`toolproof init`: start a suite, from a commented template or from a live server."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.cli.author_options import UsageError, add_command, add_server_options, fail
from toolproof.cli.generate import add_generate_options, generate_options, output_dir, print_generated

if TYPE_CHECKING:
    from toolproof.api.authoring import SnapshotResult

DEFAULT_DIR = Path("evals")


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = add_command(
        commands,
        "init",
        help="start a suite: a commented starter, or (with --server) cases generated from a live server",
        description="Without --server, write a commented starter suite, its fixture and the example server "
        "it runs against. With --server, generate one case per tool, resource and prompt of that server and "
        "record their snapshots, so that `toolproof run DIR` passes straight away. Exit status: 0, 1 when a "
        "snapshot could not be recorded, 2 on a usage or connection error.",
    )
    parser.add_argument(
        "paths", nargs="*", type=Path, metavar="DIR", help=f"the suite directory (default: {DEFAULT_DIR})"
    )
    parser.add_argument(
        "--output",
        "--suite",
        dest="output",
        type=Path,
        metavar="DIR",
        help="the suite directory (same as DIR)",
    )
    add_server_options(parser, server_help="generate from this server: a command, or a URL with --transport")
    add_generate_options(parser)
    parser.set_defaults(handler=init)


def init(args: argparse.Namespace) -> int:
    from toolproof import api

    try:
        directory = output_dir(args, DEFAULT_DIR)
        if not args.server:
            started = api.init(directory, overwrite=args.overwrite)
        else:
            options = generate_options(args)
            result = api.init(directory, server=args.server, **options)
    except UsageError as error:
        return fail("init", error)
    if not args.server:
        for path in started.written:
            print(f"  wrote {path}")
        print(f"next: toolproof run {directory} --fixture {directory / 'fixtures'}")
        return started.exit_code
    assert result.generated is not None and result.snapshots is not None
    print_generated(result.generated, directory, "init", options["headers"])
    return _snapshots(result.snapshots, args, directory, result.exit_code)


def _snapshots(taken: SnapshotResult, args: argparse.Namespace, directory: Path, status: int) -> int:
    """Say what the snapshots of the generated suite gave; `status`, or the stop by signal that ended them."""
    from toolproof.cli.outcome import exit_status
    from toolproof.core.sanitize import clean
    from toolproof.model.result import Status

    if taken.stopped_by is not None:
        return exit_status("toolproof init", taken)
    print(f"snapshots: {taken.recorded} recorded in {taken.file}")
    for result in taken.results:
        if result.status is Status.ERROR:
            message = result.failure.message if result.failure else ""
            print(clean(f"  not recorded: {result.name}: {message}"))
    for result in taken.results:
        if result.status is Status.FAIL:  # a changed answer stays as recorded: it may be a regression
            message = (result.failure.message if result.failure else "").split("\n", 1)[0].rstrip(":")
            print(clean(f"  kept as recorded: {result.name}: {message} (--overwrite records it anew)"))
    fixture = f" --fixture {args.fixture}" if args.fixture else ""
    print(f"next: toolproof run {directory}{fixture}    (and later: toolproof snapshot {directory}{fixture})")
    return status
