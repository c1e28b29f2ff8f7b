"""Recorded agent runs, read into the one transcript model.

`read_traces(path)` recognises the format from the content: MCPLab `trace.jsonl`, mcp-assert JSONL audit
logs, OpenTelemetry OTLP/JSON, Mibo legacy `{data, metadata}` and canonical `{spans}` bodies, and toolproof's
own transcript JSON. A broken file raises `TraceError`; a readable one of none of these formats raises its
subclass `UnknownFormat`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolproof.core.regular_file import UnreadableFile, read_regular_file
from toolproof.sources.traces import shapes
from toolproof.sources.traces.errors import TraceError, UnknownFormat

if TYPE_CHECKING:
    from toolproof.model.transcript import Platform, Transcript

__all__ = ["TraceError", "UnknownFormat", "read_traces"]


def _not_json(error: ValueError, line: int = 0) -> TraceError:
    """The parser's error at its own line and column (`line`: the file line of a JSON line it parsed)."""
    if isinstance(error, json.JSONDecodeError):
        return TraceError(f"not JSON ({error.msg})", line or error.lineno, error.colno)
    return TraceError(f"not JSON ({error})", line)  # e.g. a number too long to read


def _lines(text: str, whole: ValueError) -> list[tuple[int, Any]]:
    """The records of JSON lines. A file whose first line is no JSON value of its own is one broken JSON
    document: `whole`, the error of parsing it so, says where."""
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append((number, json.loads(line)))
        except ValueError as error:
            raise (_not_json(error, number) if records else _not_json(whole)) from None
    return records


MAX_TRACE_BYTES = 256 * 1024 * 1024
"""The largest trace file read (only regular files are read: a FIFO never blocks the run)."""


def read_traces(
    path: Path, *, platform: Platform | None = None, response_path: str | None = None
) -> list[Transcript]:
    """Every run recorded in `path`, each turn's token usage read from its body or node outputs when the
    format does not record it apart. `platform` forces the parser of legacy Mibo bodies (else recognised from
    the data); `response_path` is the Custom API response path of the reply text."""
    from toolproof.sources.traces.usage import with_run_usage

    return [with_run_usage(run) for run in _read(path, platform, response_path)]


def _read(path: Path, platform: Platform | None, response_path: str | None) -> list[Transcript]:
    try:
        text = read_regular_file(path, MAX_TRACE_BYTES).decode("utf-8-sig")
    except UnreadableFile as error:
        raise TraceError(f"cannot read: {error.reason}") from None
    except UnicodeDecodeError:
        raise TraceError("not UTF-8 text") from None
    if not text.strip():
        raise TraceError("the file is empty")
    source = str(path)
    try:
        document = json.loads(text)
    except ValueError as error:
        records = _lines(text, error)
    else:
        return _document(document, source, platform, response_path)
    values = [record for _, record in records]
    if shapes.mcplab_trace(values):
        from toolproof.sources.traces import mcplab  # each reader loads only for its format

        return mcplab.read(records, source)
    if all(shapes.otel(value) for value in values):
        from toolproof.sources.traces import otel

        return otel.read(values, source)
    if shapes.audit_log(values):
        from toolproof.sources.traces import audit_log

        return audit_log.read(records, source)
    raise UnknownFormat("JSON lines that are neither an MCPLab trace, an mcp-assert audit log nor OTLP/JSON")


def _document(
    document: Any, source: str, platform: Platform | None, response_path: str | None
) -> list[Transcript]:
    if isinstance(document, list):
        return [
            run
            for index, item in enumerate(document)
            for run in _document(item, f"{source}[{index}]", platform, response_path)
        ]
    if shapes.otel(document):
        from toolproof.sources.traces import otel

        return otel.read([document], source)
    if shapes.mibo_canonical(document):
        from toolproof.sources.traces import mibo

        return [mibo.read_canonical(document, source)]
    if shapes.mibo_legacy(document):
        from toolproof.sources.traces import mibo

        return [mibo.read_legacy(document, source, platform, response_path)]
    if shapes.native(document):
        from toolproof.sources.traces import native

        return native.read(document, source)
    if shapes.mcplab_trace([document]):
        from toolproof.sources.traces import mcplab

        return mcplab.read([(1, document)], source)
    if shapes.mcplab_results(document):
        raise UnknownFormat("an MCPLab results.json, which holds no messages: read the run's trace.jsonl")
    keys = ", ".join(sorted(document)[:8]) if isinstance(document, dict) else type(document).__name__
    raise UnknownFormat(f"not a trace format toolproof knows (top-level keys: {keys})")
