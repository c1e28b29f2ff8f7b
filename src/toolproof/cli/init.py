"""`toolproof init`: start a suite, from a commented template or from a live server."""

from __future__ import annotations

import argparse
from pathlib import Path

from toolproof.cli.author_options import UsageError, add_command, add_server_options, fail
from toolproof.cli.generate import add_generate_options, output_dir, run_generate
from toolproof.exit_codes import ExitCode

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
    try:
        directory = output_dir(args, DEFAULT_DIR)
    except UsageError as error:
        return fail("init", error)
    if args.server:
        return _from_server(args, directory)
    from toolproof.author.starter import StarterExists, write_starter

    try:
        written = write_starter(directory, overwrite=args.overwrite)
    except (StarterExists, OSError) as error:
        return fail("init", error)
    for path in written:
        print(f"  wrote {path}")
    print(f"next: toolproof run {directory} --fixture {directory / 'fixtures'}")
    return ExitCode.OK


def _from_server(args: argparse.Namespace, directory: Path) -> int:
    import anyio

    from toolproof.author.snapshot import run_snapshots
    from toolproof.author.snapshot_file import read_snapshots, render_snapshots, snapshot_path
    from toolproof.cli.author_options import load_items, server_options
    from toolproof.core.sanitize import clean
    from toolproof.core.writing import write_atomic
    from toolproof.model.result import Status
    from toolproof.report.sinks import Broadcast

    done = run_generate(args, directory, "init")
    if isinstance(done, int):
        return done
    file = snapshot_path(directory)
    try:
        items = load_items([directory])
        options = server_options(args)
        keep = not args.overwrite  # recorded answers are replaced only when asked
        taken = anyio.run(
            lambda: run_snapshots(
                items,
                read_snapshots(file),
                file,
                options,
                update=True,
                jobs=args.jobs,
                sink=Broadcast([]),
                keep_recorded=keep,
            )
        )
        write_atomic(file, render_snapshots(taken.snapshots))
    except (UsageError, OSError) as error:
        return fail("init", error)
    missed = [result for result in taken.results if result.status is Status.ERROR]
    differ = [result for result in taken.results if result.status is Status.FAIL]
    print(f"snapshots: {len(taken.snapshots.snapshots or [])} recorded in {file}")
    for result in missed:
        message = result.failure.message if result.failure else ""
        print(clean(f"  not recorded: {result.name}: {message}"))
    for result in differ:  # a changed answer stays as recorded: it may be a regression
        message = (result.failure.message if result.failure else "").split("\n", 1)[0].rstrip(":")
        print(clean(f"  kept as recorded: {result.name}: {message} (--overwrite records it anew)"))
    fixture = f" --fixture {args.fixture}" if args.fixture else ""
    print(f"next: toolproof run {directory}{fixture}    (and later: toolproof snapshot {directory}{fixture})")
    return ExitCode.FAILED if missed or differ else ExitCode.OK
