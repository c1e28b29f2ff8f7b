"""Where a probed server runs: a scratch directory of its own, so nothing it writes lands in the caller's.

Fuzzing sends hostile strings (`' OR 1=1 --`, names with newlines or a right-to-left override) that a
server may use as file names, and some servers index or watch their working directory. A stdio server
without a working directory of the user's choosing (`--cwd`) therefore starts in a new temporary directory,
removed with everything in it once the probe is done with that server. The command and arguments that name
an existing file or directory relative to the caller's directory (`dist/index.js`, `server.py`) are made
absolute, so that they still name it from there.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import replace
from pathlib import Path

from toolproof.mcp.spec import ConnectSpec
from toolproof.model.server_config import Transport

NOTE = "the server runs in a scratch directory, removed afterwards (--cwd DIR runs it there instead)"
"""What a probe says about it, once per command (the CLI prints it)."""

PREFIX = "toolproof-probe-"


def needs_scratch(spec: ConnectSpec) -> bool:
    """Whether the probe starts this server in a scratch directory: a stdio server with no cwd given."""
    return spec.transport is Transport.STDIO and spec.cwd is None


@contextmanager
def in_scratch(spec: ConnectSpec) -> Iterator[ConnectSpec]:
    """`spec` with a new scratch directory as its working directory, removed on exit; `spec` itself when
    it needs none."""
    if not needs_scratch(spec):
        yield spec
        return
    here = Path.cwd()
    command, *args = (anchored(part, here) for part in (spec.command, *spec.args))
    root = Path(tempfile.mkdtemp(prefix=PREFIX))
    try:
        yield replace(spec, command=command, args=tuple(args), cwd=str(root))
    finally:
        remove(root)


def anchored(argument: str, base: Path) -> str:
    """`argument` as an absolute path when it is a relative path, with a slash or a file suffix, to a file
    or directory that exists under `base`; otherwise as it is (an option, a subcommand, a package name)."""
    if argument.startswith("-") or os.path.isabs(argument) or not ("/" in argument or Path(argument).suffix):
        return argument
    path = base / argument
    return str(path) if path.exists() else argument


def remove(root: Path) -> None:
    """Remove `root` and all in it, also directories the server made unreadable (links never followed)."""
    with suppress(OSError):
        os.chmod(root, stat.S_IRWXU)
    for directory, subdirectories, _ in os.walk(root):
        for name in subdirectories:
            path = os.path.join(directory, name)
            if not os.path.islink(path):
                with suppress(OSError):
                    os.chmod(path, stat.S_IRWXU)
    shutil.rmtree(root, ignore_errors=True)
