"""The authoring commands take mcp-assert's flags and positional paths in any order."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolproof.cli import build_parser
from toolproof.cli.author_options import UsageError, server_config
from toolproof.cli.options import parse_headers

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
    with pytest.raises(UsageError, match="URL"):
        server_config("node s.js", "sse", "")
    with pytest.raises(UsageError, match="K=V pairs"):
        parse_headers("novalue")


@pytest.mark.parametrize("command", ["init", "generate", "snapshot", "coverage", "watch"])
def test_a_url_without_transport_is_streamable_http(command: str) -> None:
    """As in the probes, a URL without --transport is reached over Streamable HTTP, not run as a command."""
    from toolproof.cli.author_options import given_server
    from toolproof.model.server_config import Transport

    args = build_parser()[0].parse_args([command, "--server", "http://127.0.0.1:1/mcp", "--headers", "A=1"])
    server = given_server(args)
    assert server is not None
    assert (server.transport, server.url) == (Transport.HTTP, "http://127.0.0.1:1/mcp")
    assert server.headers == {"A": "1"}
    args = build_parser()[0].parse_args([command, "--server", "node s.js"])
    stdio = given_server(args)
    assert stdio is not None and (stdio.transport, stdio.command) == (Transport.STDIO, "node")


def test_matrix_urls_without_transport_are_streamable_http() -> None:
    from toolproof.api.authoring import server_config
    from toolproof.cli.matrix import named_servers
    from toolproof.model.server_config import Transport

    argv = ["matrix", "s", "--server", "a=http://h/mcp", "--server", "b=node s.js"]
    args = build_parser()[0].parse_args(argv)
    named = named_servers(args.server)
    remote, local = (server_config(command, args.transport) for command in named.values())
    assert (remote.transport, remote.url) == (Transport.HTTP, "http://h/mcp")
    assert local.transport is Transport.STDIO
