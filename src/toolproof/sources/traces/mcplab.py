"""MCPLab `trace.jsonl` (trace version 3): one `scenario_run` line per run, each with its messages.

Each `user` message opens a turn; assistant `tool_use` parts are the turn's calls, completed by the matching
`tool_result` parts (result text, error flag, duration); the last assistant text of a turn is its reply;
assistant `usage` is summed per turn. The run's scenario id names the case it was recorded for.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolproof.core.numbers import integer
from toolproof.model.transcript import ToolCall, Transcript, Turn, Usage
from toolproof.sources.traces.errors import TraceError
from toolproof.sources.traces.values import arguments, content_text, millis, span_ms


@dataclass
class _TurnBuilder:
    user: str = ""
    reply: str = ""
    calls: list[dict[str, Any]] = field(default_factory=list)
    usage: Usage | None = None
    started: float | None = None


def _usage(raw: Any) -> Usage | None:
    if not isinstance(raw, Mapping):
        return None
    usage = Usage(
        input_tokens=integer(raw.get("input_tokens")),
        output_tokens=integer(raw.get("output_tokens")),
        total_tokens=integer(raw.get("total_tokens")),
    )
    return usage if usage.total is not None else None


def _run(record: Mapping[str, Any], line: int, source: str) -> Transcript:
    messages = record.get("messages")
    if not isinstance(messages, list):
        raise TraceError("a scenario_run has no messages list", line)
    turns: list[_TurnBuilder] = []
    results: dict[str, Mapping[str, Any]] = {}
    for message in messages:
        if not isinstance(message, Mapping):
            continue
        role = message.get("role")
        content = message.get("content")
        parts = content if isinstance(content, list) else [{"type": "text", "text": content}]
        if role == "user" or not turns:
            turns.append(
                _TurnBuilder(
                    user=content_text(content) if role == "user" else "", started=millis(message.get("ts"))
                )
            )
            if role == "user":
                continue
        current = turns[-1]
        for part in parts:
            if not isinstance(part, Mapping):
                continue
            if part.get("type") == "tool_use":
                current.calls.append(dict(part))
            elif part.get("type") == "tool_result":
                results[str(part.get("tool_use_id"))] = part
        if role == "assistant":
            text = content_text([part for part in parts if isinstance(part, Mapping)])
            if text:
                current.reply = text
            usage = _usage(message.get("usage"))
            if usage is not None:
                current.usage = usage if current.usage is None else current.usage + usage
    end = millis(record.get("ts_end"))
    built: list[Turn] = []
    position = 0
    for index, turn in enumerate(turns):
        calls = []
        for use in turn.calls:
            result = results.get(str(use.get("id")), {})
            calls.append(
                ToolCall(
                    tool=str(use.get("name", "")),
                    arguments=arguments(use.get("input")),
                    result=content_text(result.get("content")) if result else None,
                    is_error=bool(result.get("is_error")),
                    duration_ms=_number(result.get("duration_ms")),
                    position=position,
                    id=str(use.get("id")) if use.get("id") is not None else None,
                )
            )
            position += 1
        finish = turns[index + 1].started if index + 1 < len(turns) else end
        start = turn.started if turn.started is not None else millis(record.get("ts_start"))
        duration = None if start is None or finish is None else max(0.0, finish - start)
        built.append(
            Turn(user=turn.user, reply=turn.reply, calls=tuple(calls), usage=turn.usage, duration_ms=duration)
        )
    if len(built) == 1 and built[0].duration_ms is None:
        built[0] = built[0].model_copy(update={"duration_ms": span_ms(record.get("ts_start"), end)})
    agent = record.get("agent")
    run_index = record.get("run_index")
    return Transcript(
        turns=tuple(built),
        scenario=_text(record.get("scenario_id")),
        run=" ".join(
            part for part in (_text(agent), f"run {run_index}" if run_index is not None else None) if part
        )
        or None,
        source=f"{source}:{line}",
        started_ms=millis(record.get("ts_start")),
        request_ids=(str(record["request_id"]),) if record.get("request_id") is not None else (),
        provider=_text(record.get("provider")),
        model=_text(record.get("model")),
        error=_text(record.get("error")),
    )


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def read(records: list[tuple[int, Any]], source: str) -> list[Transcript]:
    """The runs of a trace.jsonl: `(line number, record)` pairs in file order."""
    runs = []
    for line, record in records:
        if not isinstance(record, Mapping):
            raise TraceError(f"expected a JSON object, got {json.dumps(record)[:40]}", line)
        if record.get("type") == "scenario_run":
            runs.append(_run(record, line, source))
    return runs
