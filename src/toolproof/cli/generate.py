"""`toolproof generate`: write a suite from a live server's tools, resources and prompts."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from toolproof.cli.author_options import (
    UsageError,
    add_command,
    add_server_options,
    fail,
)
from toolproof.cli.options import jobs_arg, parse_headers
from toolproof.exit_codes import ExitCode

if TYPE_CHECKING:
    from toolproof.api import Protocol
    from toolproof.api.authoring import Transport
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


def generate_options(args: argparse.Namespace) -> GenerateOptions:
    """The flags `generate` and `init` pass to the API with --server; raises UsageError without it."""
    if not args.server:
        raise UsageError("give the server with --server")
    return GenerateOptions(
        transport=args.transport,
        headers=parse_headers(args.headers),
        fixture=args.fixture,
        timeout=args.timeout,
        protocol=args.protocol,
        include_writes=args.include_writes,
        overwrite=args.overwrite,
        jobs=args.jobs,
    )


class GenerateOptions(TypedDict):
    """`api.generate`'s settings (and `api.init`'s with a server), as the flags give them."""

    transport: Transport | None
    headers: dict[str, str]
    fixture: Path | None
    timeout: float
    protocol: Protocol
    include_writes: bool
    overwrite: bool
    jobs: int


def print_generated(done: Generated, output: Path, command: str, headers: dict[str, str]) -> None:
    """Say what was generated into `output` (and warn of a --headers value that looks like a secret)."""
    from toolproof.core.gofmt import counted
    from toolproof.core.sanitize import clean, secret_values

    if secret_values({}, headers):
        print(f"toolproof {command}: warning: a --headers value looks like a secret and is written into the "
              "suite as given; pass it as ${VAR} (single-quoted) to keep it in the environment",
              file=sys.stderr)
    listing = done.listing
    listed = [counted(len(listing.tools), "tool"), counted(len(listing.resources), "resource"),
              counted(len(listing.prompts), "prompt")]
    print(f"{', '.join(listed)}; {counted(len(done.written), 'file')} written to {output}, "
          f"{len(done.kept)} left as they were")
    for draft in done.skipped:
        print(clean(f"  skip: {draft.file}: {draft.skipped}"))
    if done.kept:
        print("  (existing files are kept: --overwrite replaces them)")


def generate(args: argparse.Namespace) -> int:
    from toolproof import api

    try:
        output = output_dir(args)
        options = generate_options(args)
        done = api.generate(args.server, output, **options).generated
    except UsageError as error:
        return fail("generate", error)
    print_generated(done, output, "generate", options["headers"])
    print(f"next: toolproof run {output}", file=sys.stdout)
    return ExitCode.OK
