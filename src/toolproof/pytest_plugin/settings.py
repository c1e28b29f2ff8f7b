"""The plugin's options (command line and ini) and the run-wide settings read from them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from toolproof.sources.options import ServerOptions

SUFFIXES = frozenset({".yaml", ".yml", ".json"})
SKIPPED_DIRECTORIES = frozenset({"node_modules", "fixtures"})
DEFAULT_TIMEOUT = "30s"
DEFAULT_SUBSCRIPTION_WAIT = "5s"


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("toolproof", "toolproof suites (MCP servers and agent cases)")
    group.addoption(
        "--toolproof",
        action="store_true",
        default=False,
        help="collect toolproof suite files (YAML cases, Mibo JSON cases) under the given paths",
    )
    group.addoption("--toolproof-fixture", metavar="DIR", help="fixture directory; each case gets a copy")
    group.addoption("--toolproof-server", metavar="CMD", help="replace every case's stdio server command")
    group.addoption(
        "--toolproof-timeout", metavar="DURATION", help=f"per-case timeout (default {DEFAULT_TIMEOUT})"
    )
    group.addoption(
        "--toolproof-subscription-wait",
        metavar="DURATION",
        help="how long expect_notification: true waits for a resource update "
        f"(default {DEFAULT_SUBSCRIPTION_WAIT})",
    )
    group.addoption(
        "--toolproof-trace",
        action="append",
        default=[],
        metavar="PATH",
        help="recorded agent runs (files or directories) that agent cases are checked against; may repeat",
    )
    group.addoption(
        "--toolproof-shard",
        metavar="K/N",
        help="only the toolproof cases of shard K of N (the split `toolproof run --shard` makes)",
    )
    parser.addini("toolproof_paths", "directories whose toolproof suite files are collected", type="paths")
    parser.addini("toolproof_fixture", "fixture directory (relative to the ini file)", default="")
    parser.addini("toolproof_server", "stdio server command that replaces every case's", default="")
    parser.addini("toolproof_timeout", "per-case timeout, e.g. 30s", default=DEFAULT_TIMEOUT)
    parser.addini(
        "toolproof_subscription_wait",
        "how long expect_notification: true waits for a resource update, e.g. 30s",
        default=DEFAULT_SUBSCRIPTION_WAIT,
    )
    parser.addini("toolproof_traces", "recorded agent runs for agent cases", type="paths")


@dataclass(frozen=True)
class Settings:
    """What the plugin collects and how its cases run."""

    everywhere: bool  # --toolproof: every suite file pytest visits
    roots: tuple[Path, ...]  # toolproof_paths
    traces: tuple[Path, ...]
    options: ServerOptions  # how server cases run: fixture, server override, timeouts, environment
    root: Path

    def wants(self, path: Path) -> bool:
        """Whether `path` is a suite file the plugin was asked to collect."""
        if path.suffix.lower() not in SUFFIXES or _under_any(path, self.traces):
            return False
        if not self.everywhere and not _under_any(path, self.roots):
            return False
        resolved = path.resolve()
        folders = (resolved.relative_to(self.root) if resolved.is_relative_to(self.root) else resolved).parent
        return not any(part in SKIPPED_DIRECTORIES or part.startswith(".") for part in folders.parts)


def _under_any(path: Path, roots: tuple[Path, ...]) -> bool:
    resolved = path.resolve()
    return any(resolved == root or resolved.is_relative_to(root) for root in roots)


def read_settings(config: pytest.Config) -> Settings | None:
    """The settings, or None when the plugin was not asked for; raises pytest.UsageError for a bad value."""
    everywhere = bool(config.getoption("toolproof"))
    roots = tuple(Path(path).resolve() for path in config.getini("toolproof_paths"))
    if not everywhere and not roots:
        return None
    from toolproof.api import server_options
    from toolproof.exit_codes import UsageError

    base = config.inipath.parent if config.inipath else config.rootpath
    fixture_text = config.getoption("toolproof_fixture") or ""
    fixture = Path(fixture_text).resolve() if fixture_text else None
    if fixture is None and config.getini("toolproof_fixture"):
        fixture = (base / str(config.getini("toolproof_fixture"))).resolve()
    if fixture is not None and not fixture.is_dir():
        raise pytest.UsageError(f"toolproof fixture {fixture}: not a directory")
    server_text = config.getoption("toolproof_server") or str(config.getini("toolproof_server"))
    timeout, timeout_text = _duration(config, "timeout")
    if timeout <= 0:
        raise pytest.UsageError(f"toolproof timeout must be positive, got {timeout_text!r}")
    wait, wait_text = _duration(config, "subscription_wait")
    if wait < 0:
        raise pytest.UsageError(f"toolproof subscription wait must not be negative, got {wait_text!r}")
    try:
        options = server_options(
            fixture=fixture, server=server_text or None, timeout=timeout, subscription_wait=wait
        )
    except UsageError as error:
        raise pytest.UsageError(f"toolproof: {error}") from None
    traces = [Path(path).resolve() for path in config.getoption("toolproof_trace")]
    traces += [Path(path).resolve() for path in config.getini("toolproof_traces")]
    missing = [str(path) for path in traces if not path.exists()]
    if missing:
        raise pytest.UsageError(f"toolproof trace {missing[0]}: no such file or directory")
    return Settings(everywhere, roots, tuple(traces), options, config.rootpath.resolve())


def _duration(config: pytest.Config, name: str) -> tuple[float, str]:
    """Seconds and text of the `toolproof_<name>` duration (the command line wins over the ini file);
    pytest.UsageError when it does not parse."""
    from toolproof.core.durations import parse_duration

    text = config.getoption(f"toolproof_{name}") or str(config.getini(f"toolproof_{name}"))
    try:
        return parse_duration(text), text
    except ValueError as error:
        raise pytest.UsageError(f"toolproof {name.replace('_', ' ')}: {error}") from None


SETTINGS = pytest.StashKey[Settings]()
