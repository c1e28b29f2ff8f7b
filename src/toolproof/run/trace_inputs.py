"""What `toolproof check` reads: the recorded runs and the agent cases of the paths it is given, and the
zone and moment date expressions see. A problem that stops it before anything is checked is a `UsageError`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.exit_codes import UsageError

if TYPE_CHECKING:
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
    from toolproof.load.walk import SuiteNotFound, walk
    from toolproof.sources.traces import TraceError, UnknownFormat, read_traces

    runs: list[Transcript] = []
    files: set[Path] = set()
    for given in paths:
        try:
            found = walk([given], TRACE_SUFFIXES)
        except SuiteNotFound as missing:
            raise UsageError(str(missing)) from None
        for path in found:
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


def recorded_run(path: Path) -> str | None:
    """For a file found among the cases: the note to skip it with when it holds a recorded run rather than a
    case (a JSON trace with no agent case in it), else None."""
    from toolproof.load.dialects import dialect_of
    from toolproof.load.yaml_source import read_yaml
    from toolproof.sources.traces import TraceError, read_traces

    if path.suffix.lower() not in TRACE_SUFFIXES:
        return None
    if any(dialect_of(document, "agent") for document in read_yaml(path).documents):
        return None
    try:
        read_traces(path)
    except TraceError:
        return None
    return f"{path}: skipped, a recorded run rather than a case (give it to --trace to check it)"
