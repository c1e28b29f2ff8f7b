"""`toolproof schema`: print the JSON Schema of a file format, or check files against it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from toolproof.exit_codes import ExitCode, UsageError
from toolproof.schemas import FORMATS


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "schema",
        help="print the JSON Schema of a file format, or check files against it",
        description="Print the JSON Schema (draft 2020-12) of one of the file formats toolproof reads; with "
        "files, check each against it instead. Exit status: 0 valid, 1 a file breaks the schema, 2 usage "
        "error.",
    )
    parser.add_argument("format", choices=list(FORMATS), metavar="FORMAT", help=", ".join(FORMATS))
    parser.add_argument(
        "files", nargs="*", default=[], type=Path, metavar="FILE", help="files to check against it"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from toolproof import api

    try:
        result = api.schema(args.format, args.files)
    except UsageError as problem:
        print(f"toolproof schema: {problem}", file=sys.stderr)
        return ExitCode.USAGE
    if args.files:
        for found in result.problems:
            print(found)
        return result.exit_code
    try:
        sys.stdout.write(result.text)
        sys.stdout.flush()
    except BrokenPipeError:  # `toolproof schema X | head`: the reader has what it wanted
        from toolproof.core.writing import silence

        silence(sys.stdout)
    return result.exit_code
