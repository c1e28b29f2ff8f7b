"""The authoring commands take mcp-assert's flags and positional paths in any order."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolproof.cli import build_parser
from toolproof.cli.author_options import UsageError, parse_headers, server_config

FLAGS = ["--suite", "s", "--server", "http://h/mcp", "--fixture", "f", "--timeout", "5s", "--output", "o",
         "--transport", "http", "--headers", "A=1"]


@pytest.mark.parametrize("command", ["init", "generate", "snapshot", "coverage", "watch", "matrix"])
def test_every_command_takes_mcp_assert_flags(command: str) -> None:
    args = build_parser()[0].parse_args([command, *FLAGS])
    assert (args.transport, args.headers, args.timeout) == ("http", "A=1", 5.0)
    assert args.fixture == Path("f")


def test_paths_and_flags_in_any_order() -> None:
    args = build_parser()[0].parse_args(["snapshot", "a", "--update", "b", "--server", "srv x", "c", "-q"])
    assert (args.paths, args.update, args.server, args.quiet) == ([Path("a"), Path("b"), Path("c")], True,
                                                                   "srv x", True)
    args = build_parser()[0].parse_args(["init", "evals", "--server", "npx srv"])
    assert (args.paths, args.server) == ([Path("evals")], "npx srv")


def test_server_specs() -> None:
    stdio = server_config("node 'my server.js' --flag", "stdio", "")
    assert (stdio.command, stdio.args) == ("node", ["my server.js", "--flag"])
    remote = server_config("https://x/mcp", "sse", "Authorization=Bearer t, X-A=b=c")
    assert remote.headers == {"Authorization": "Bearer t", "X-A": "b=c"}
    with pytest.raises(UsageError, match="URL"):
        server_config("node s.js", "http", "")
    with pytest.raises(UsageError, match="KEY=VALUE"):
        parse_headers("novalue")
