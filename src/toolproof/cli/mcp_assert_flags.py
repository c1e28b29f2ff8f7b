"""mcp-assert commands and flags toolproof does not have, each with a clear word instead of argparse's.

One table: when a command or flag is added to toolproof, its row here goes (a registered command or a known
flag is never looked up here, so a row left behind does no harm).
"""

from __future__ import annotations

# command -> what to do instead
COMMANDS: dict[str, str] = {}

# (command, flag) -> what to do instead
FLAGS: dict[tuple[str, str], str] = {
    ("run", "--fix"): "agent-lsp's position re-probing is not available",
    ("snapshot", "--docker"): "not available",
    ("watch", "--interval"): "watch reacts to change notifications; --debounce takes changes together",
    ("matrix", "--languages"): "give --server NAME=CMD once per server",
}


def unknown_command(name: str) -> str | None:
    """What to say about `toolproof NAME` when NAME is an mcp-assert command toolproof lacks."""
    advice = COMMANDS.get(name)
    return None if advice is None else f"{name!r} is an mcp-assert command toolproof does not have: {advice}"


def unknown_flags(command: str, extra: list[str]) -> str | None:
    """What to say about the first of the unrecognised arguments that is an mcp-assert flag."""
    for word in extra:
        flag = word.split("=", 1)[0]
        if flag.startswith("-") and not flag.startswith("--"):  # Go's flag package takes -name too
            flag = f"-{flag}"
        advice = FLAGS.get((command, flag))
        if advice is not None:
            return f"{flag} is an mcp-assert flag `toolproof {command}` does not have: {advice}"
    return None
