"""Command line: parse arguments and dispatch. Heavy modules (the MCP SDK) load only inside a command."""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Sequence

from toolproof import __version__

COMMANDS = ("run", "check", "intercept", "eval", "ci", "report")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="toolproof",
        description="Prove that MCP servers and tool-using AI agents do what they should.",
    )
    parser.add_argument("--version", action="version", version=f"toolproof {__version__}")
    commands = parser.add_subparsers(title="commands", dest="command", metavar="COMMAND")
    for name in COMMANDS:
        module = __import__(f"toolproof.cli.{name}", fromlist=["register"])
        module.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `toolproof` console script; returns the exit status (130 after Ctrl-C)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        status: int = handler(args)
    except KeyboardInterrupt:  # Ctrl-C outside the part of a command that catches signals itself
        from toolproof.cli.interrupt import Interrupted

        return Interrupted(signal.SIGINT).report(f"toolproof {args.command}")
    return status
