"""Token usage found in response bodies and node outputs, in any of the formats providers write: read at the
edge of every source that keeps a body or node outputs (the trace readers, the HTTP target) into the turn's
typed `Usage`, so checkers only read that.

Recognised records (each wherever it appears, at any depth):
- OpenAI `usage: {prompt_tokens, completion_tokens, total_tokens}`;
- Anthropic `usage: {input_tokens, output_tokens}`;
- Gemini `usageMetadata: {promptTokenCount, candidatesTokenCount, totalTokenCount}`;
- LangChain `usageMetadata` / `usage_metadata: {input_tokens, output_tokens, total_tokens}`;
- generic `meta: {tokens: N}` or `meta: {tokens: {total, input, output}}`;
- OpenTelemetry attributes `gen_ai.usage.input_tokens` / `output_tokens` (older: `prompt_tokens` /
  `completion_tokens`);
- n8n language-model outputs `tokenUsage: {promptTokens, completionTokens, totalTokens}`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from toolproof.core.numbers import integer
from toolproof.model.transcript import Transcript, Turn, Usage

_SHAPES: dict[str, tuple[tuple[str, str, str], ...]] = {
    # record key: (input, output, total) field names, tried in order
    "usage": (
        ("prompt_tokens", "completion_tokens", "total_tokens"),
        ("input_tokens", "output_tokens", "total_tokens"),
    ),
    "usageMetadata": (
        ("promptTokenCount", "candidatesTokenCount", "totalTokenCount"),
        ("input_tokens", "output_tokens", "total_tokens"),
    ),
    "usage_metadata": (("input_tokens", "output_tokens", "total_tokens"),),
    "tokenUsage": (("promptTokens", "completionTokens", "totalTokens"),),
}
_OTEL = (
    ("gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "gen_ai.usage.total_tokens"),
    ("gen_ai.usage.prompt_tokens", "gen_ai.usage.completion_tokens", "gen_ai.usage.total_tokens"),
)


def _record(fields: Mapping[str, Any], names: tuple[str, str, str]) -> Usage | None:
    counts = [integer(fields.get(name)) for name in names]
    if all(count is None for count in counts):
        return None
    return Usage(input_tokens=counts[0], output_tokens=counts[1], total_tokens=counts[2])


def _at(mapping: Mapping[str, Any]) -> tuple[list[Usage], set[str]]:
    """The usage records held directly by `mapping`, and the keys they were read from."""
    found: list[Usage] = []
    used: set[str] = set()
    for key, shapes in _SHAPES.items():
        fields = mapping.get(key)
        if not isinstance(fields, Mapping):
            continue
        for names in shapes:
            usage = _record(fields, names)
            if usage is not None:
                found.append(usage)
                used.add(key)
                break
    meta = mapping.get("meta")
    if isinstance(meta, Mapping) and "tokens" in meta:
        tokens = meta["tokens"]
        usage = (
            Usage(total_tokens=integer(tokens))
            if not isinstance(tokens, Mapping)
            else _record(tokens, ("input", "output", "total"))
        )
        if usage is not None and usage.total is not None:
            found.append(usage)
    for names in _OTEL:
        if any(name in mapping for name in names[:2]):
            usage = _record(mapping, names)
            if usage is not None:
                found.append(usage)
            break
    return found, used


def usage_records(value: Any) -> Iterator[Usage]:
    """Every usage record inside a decoded JSON value."""
    stack = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, Mapping):
            found, used = _at(current)
            yield from found
            stack.extend(item for key, item in current.items() if key not in used)
        elif isinstance(current, list | tuple):
            stack.extend(current)


def with_found_usage(turn: Turn) -> Turn:
    """`turn` with its usage: what the source recorded for it (e.g. a trace's root span) when it recorded any,
    else the records found in the response body (or, without a body, in the node outputs), which the recorded
    usage already counts; None when there is none."""
    if turn.usage is not None:
        return turn
    held = turn.body if turn.body is not None else [node.output for node in turn.nodes]
    found = Usage.summed(usage_records(held))
    return turn if found is None else turn.model_copy(update={"usage": found})


def with_run_usage(run: Transcript) -> Transcript:
    """`run` with the usage of each of its turns found (see `with_found_usage`)."""
    turns = tuple(with_found_usage(turn) for turn in run.turns)
    changed = any(new is not old for new, old in zip(turns, run.turns, strict=True))
    return run.model_copy(update={"turns": turns}) if changed else run
