"""`toolproof generate`: write a suite from a live server's tools, resources and prompts."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.cli.author_options import (
    UsageError,
    add_command,
    add_server_options,
    fail,
    given_server,
    server_options,
)
from toolproof.cli.options import jobs_arg
from toolproof.exit_codes import ExitCode

if TYPE_CHECKING:
    from toolproof.author.generate import Generated


def add_generate_options(parser: argparse.ArgumentParser) -> None:
    """The options `generate` and `init` share."""
    parser.add_argument(
        "--fixture",
        type=Path,
        metavar="DIR",
        help="fixture directory: path arguments point into its per-case copy, {{fixture}}",
    )
    parser.add_argument(
        "--include-writes",
        action="store_true",
        help="also call tools annotated as writing (skipped by default)",
    )
    parser.add_argument("--overwrite", action="store_true", help="replace files that already exist")
    parser.add_argument(
        "-j", "--jobs", type=jobs_arg, default=2, metavar="N", help="requests at once (default 2)"
    )


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = add_command(
        commands,
        "generate",
        help="write a suite from a live server: one case per tool, resource and prompt",
        description="Ask the server for its tools, resources and prompts and write one case file per item: "
        "arguments from the input schema, expectations from two live answers (volatile values left out). "
        "Tools annotated as writing are written with skip: true unless --include-writes. Exit status: 0, "
        "2 on a usage or connection error.",
    )
    parser.add_argument("paths", nargs="*", type=Path, metavar="DIR", help="the output directory")
    parser.add_argument(
        "--output",
        "--suite",
        dest="output",
        type=Path,
        metavar="DIR",
        help="the output directory (created if needed)",
    )
    add_server_options(
        parser, server_help="the server: a command, or a URL with --transport sse|http", timeout=30.0
    )
    add_generate_options(parser)
    parser.set_defaults(handler=generate)


def output_dir(args: argparse.Namespace, default: Path | None = None) -> Path:
    given: list[Path] = [*args.paths, *([args.output] if args.output else [])]
    if len(set(given)) > 1:
        raise UsageError(f"give one output directory, got {', '.join(map(str, given))}")
    if given:
        return given[0]
    if default is None:
        raise UsageError("give the output directory (DIR or --output)")
    return default


def run_generate(args: argparse.Namespace, output: Path, command: str) -> Generated | int:
    """Generate into `output` and print what was written; an exit status on error."""
    import anyio

    from toolproof.author.generate import generate
    from toolproof.core.sanitize import clean
    from toolproof.mcp.errors import RequestFailed

    try:
        server = given_server(args)
        if server is None:
            raise UsageError("give the server with --server")
        options = server_options(args)
    except UsageError as error:
        return fail(command, error)
    try:
        done = anyio.run(
            lambda: generate(
                server,
                output,
                options,
                include_writes=args.include_writes,
                overwrite=args.overwrite,
                jobs=args.jobs,
            )
        )
    except RequestFailed as error:
        return fail(command, Exception(clean(error.failure.message)))
    except OSError as error:
        return fail(command, error)
    from toolproof.core.sanitize import secret_values

    if secret_values({}, server.headers):
        print(
            f"toolproof {command}: warning: a --headers value looks like a secret and is written into the "
            "suite as given; pass it as ${VAR} (single-quoted) to keep it in the environment",
            file=sys.stderr,
        )
    listing = done.listing
    from toolproof.core.gofmt import counted

    listed = [
        counted(len(listing.tools), "tool"),
        counted(len(listing.resources), "resource"),
        counted(len(listing.prompts), "prompt"),
    ]
    print(
        f"{', '.join(listed)}; {counted(len(done.written), 'file')} written to {output}, "
        f"{len(done.kept)} left as they were"
    )
    for draft in done.skipped:
        print(clean(f"  skip: {draft.file}: {draft.skipped}"))
    if done.kept:
        print("  (existing files are kept: --overwrite replaces them)")
    return done


def generate(args: argparse.Namespace) -> int:
    try:
        output = output_dir(args)
    except UsageError as error:
        return fail("generate", error)
    done = run_generate(args, output, "generate")
    if isinstance(done, int):
        return done
    print(f"next: toolproof run {output}", file=sys.stdout)
    return ExitCode.OK
