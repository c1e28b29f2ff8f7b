"""Command line: parse arguments and dispatch to `toolproof.api`. Heavy modules load only inside a command."""

from __future__ import annotations

import argparse
import gc
import signal
import sys
from collections.abc import Sequence

from toolproof._version import __version__
from toolproof.exit_codes import ExitCode

COMMANDS = (
    "run",
    "ci",
    "check",
    "eval",
    "intercept",
    "report",
    "schema",
    "lint",
    "audit",
    "fuzz",
    "conformance",
    "scan",
)
AUTHORING = ("init", "generate", "snapshot", "coverage", "watch", "matrix")


class Parser(argparse.ArgumentParser):
    """An argument parser that never takes a prefix of an option for the option (`--fix` is not
    `--fixture`)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]


def build_parser(
    only: str | None = None,
) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The top-level parser and each command's own; with `only`, that command's alone (a command's run then
    imports no other command's module)."""
    parser = Parser(
        prog="toolproof",
        description="Prove that MCP servers and tool-using AI agents do what they should.",
        epilog="Exit status (every command): 0 passed, 1 a case failed, 2 a usage, load or connection error, "
        "5 nothing ran (no case found; check: no recorded run for any case), 128+N stopped by signal N.",
    )
    parser.add_argument("--version", action="version", version=f"toolproof {__version__}")
    commands = parser.add_subparsers(title="commands", dest="command", metavar="COMMAND", parser_class=Parser)
    for name in (only,) if only else (*COMMANDS, *AUTHORING):
        module = __import__(f"toolproof.cli.{name}", fromlist=["register"])
        module.register(commands)
    return parser, dict(commands.choices)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `toolproof` console script; returns the exit status (130 after Ctrl-C)."""
    from toolproof.cli.mcp_assert_flags import unknown_command, unknown_flags

    words = list(sys.argv[1:] if argv is None else argv)
    named = words[0] if words and words[0] in (*COMMANDS, *AUTHORING) else None
    parser, commands = build_parser(named)
    if words and named is None and (problem := unknown_command(words[0])):
        parser.error(problem)
    args, extra = parser.parse_known_args(words)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return ExitCode.USAGE
    if extra:  # the command's own usage, not the top level's
        command = commands[args.command]
        command.error(unknown_flags(args.command, extra) or f"unrecognized arguments: {' '.join(extra)}")
    try:
        status: int = handler(args)
    except KeyboardInterrupt:  # Ctrl-C outside the part of a command that catches signals itself
        from toolproof.run.interrupt import Interrupted

        return Interrupted(signal.SIGINT).report(f"toolproof {args.command}")
    return status


def console() -> int:
    """The `toolproof` command and `python -m toolproof`: `main`, then the finished command's objects are
    frozen out of the garbage collector, whose pass over them at interpreter exit would cost a tenth of a
    second and free nothing that matters (reports are written and closed, servers stopped, by then)."""
    status = main()
    gc.freeze()
    return status
