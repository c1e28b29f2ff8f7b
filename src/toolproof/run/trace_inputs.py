"""What `toolproof check` reads: the recorded runs and the agent cases of the paths it is given, and the
zone and moment date expressions see. A problem that stops it before anything is checked is a `UsageError`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.exit_codes import UsageError

if TYPE_CHECKING:
    from toolproof.load.errors import LoadError
    from toolproof.model.scenario import AgentCase
    from toolproof.model.transcript import Platform, Transcript

TRACE_SUFFIXES = frozenset({".json", ".jsonl", ".ndjson"})


def time_zone(zone: str | tzinfo | None) -> tzinfo:
    """The zone date expressions see: `zone` (a name), else the local one."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    if isinstance(zone, tzinfo):
        return zone
    if zone is None:
        local = datetime.now().astimezone().tzinfo
        assert local is not None
        return local
    try:
        return ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise UsageError(f"--timezone {zone}: not a time zone name") from None


def when(moment: str | datetime, zone: tzinfo) -> datetime:
    """A fixed moment (ISO 8601 text) for date expressions; in `zone` unless it names its own."""
    if isinstance(moment, str):
        try:
            moment = datetime.fromisoformat(moment)
        except ValueError:
            raise UsageError(f"--now {moment}: not an ISO 8601 date-time") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=zone)


def read_runs(
    paths: Sequence[Path], platform: Platform | None, response_path: str | None
) -> tuple[list[Transcript], set[Path]]:
    """Every run of the trace files, and the files (resolved); in a directory, files of no trace format are
    skipped with a note."""
    from toolproof.core.writing import warn
    from toolproof.load.walk import files_under
    from toolproof.sources.traces import TraceError, UnknownFormat, read_traces

    runs: list[Transcript] = []
    files: set[Path] = set()
    for given in paths:
        for path in _files_under(given, TRACE_SUFFIXES, files_under):
            files.add(path.resolve())
            try:
                runs.extend(read_traces(path, platform=platform, response_path=response_path))
            except UnknownFormat as error:
                if path == given:
                    raise UsageError(f"{path}: {error}") from None
                warn(f"{path}: skipped, {error}")
            except TraceError as error:
                raise UsageError(f"{path}: {error}") from None
    return runs, files


def _files_under(
    given: Path, suffixes: frozenset[str], walk: Callable[[Path, frozenset[str]], list[Path]]
) -> list[Path]:
    try:
        return walk(given, suffixes)
    except FileNotFoundError as error:
        raise UsageError(f"{error.args[0]}: no such file or directory") from None


def agent_cases(paths: Sequence[Path], recorded: set[Path]) -> tuple[list[AgentCase], list[LoadError]]:
    """The agent cases of the case paths, leaving out the trace files read as runs, and JSON files found
    beside the cases that hold a recorded run rather than a case (skipped with a note)."""
    from toolproof.core.writing import warn
    from toolproof.load.agent_cases import CASE_SUFFIXES, load_agent_cases
    from toolproof.load.walk import files_under
    from toolproof.sources.traces import TraceError, read_traces

    named = {path.resolve() for path in paths}
    files = [
        path
        for given in paths
        for path in _files_under(given, CASE_SUFFIXES, files_under)
        if path.resolve() not in recorded
    ]
    cases, errors = load_agent_cases(files)
    unread = {error.file.resolve() for error in errors}
    traces: set[Path] = set()
    for path in files:
        resolved = path.resolve()
        if resolved in unread and resolved not in named and path.suffix.lower() in TRACE_SUFFIXES:
            try:
                read_traces(path)
            except TraceError:
                continue
            warn(f"{path}: skipped, a recorded run rather than a case (give it to --trace to check it)")
            traces.add(resolved)
    return cases, [error for error in errors if error.file.resolve() not in traces]
