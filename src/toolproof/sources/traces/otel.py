"""OpenTelemetry OTLP/JSON (`resourceSpans[].scopeSpans[].spans[]`) with GenAI spans.

Each trace is one turn; traces that share a `gen_ai.conversation.id` are the turns of one run, in time order.
Spans of one trace may arrive in several documents (or JSON lines): they are merged by trace and span id.
Messages carried by span events (GenAI events) count as the span's messages.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from toolproof.core.numbers import integer
from toolproof.model.transcript import Transcript
from toolproof.sources.traces import shapes
from toolproof.sources.traces.errors import TraceError
from toolproof.sources.traces.spans import Span, renumbered, turn_of, with_events
from toolproof.sources.traces.values import mapping, millis


def any_value(value: Any) -> Any:
    """An OTLP `AnyValue` as a plain value."""
    if not isinstance(value, Mapping):
        return value
    for key in ("stringValue", "boolValue", "doubleValue", "bytesValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        return integer(value["intValue"])
    if "arrayValue" in value:
        items = mapping(value["arrayValue"]).get("values")
        return [any_value(item) for item in items] if isinstance(items, list) else []
    if "kvlistValue" in value:
        return attributes(mapping(value["kvlistValue"]).get("values"))
    return None


def attributes(raw: Any) -> dict[str, Any]:
    """OTLP `[{key, value}]` attributes (or an already plain mapping) as a dict."""
    if isinstance(raw, Mapping):
        return dict(raw)
    if not isinstance(raw, list):
        return {}
    return {str(item.get("key")): any_value(item.get("value")) for item in raw if isinstance(item, Mapping)}


def events(raw: Any) -> list[tuple[str, dict[str, Any]]]:
    """A span's events as (name, attributes), in the order recorded."""
    listed = [event for event in raw if isinstance(event, Mapping)] if isinstance(raw, list) else []
    return [(str(event.get("name", "")), attributes(event.get("attributes"))) for event in listed]


def _span(raw: Mapping[str, Any]) -> Span:
    status = mapping(raw.get("status"))
    code = status.get("code")
    failed = code in (2, "2", "STATUS_CODE_ERROR")
    parent = raw.get("parentSpanId") or None
    return Span(
        id=str(raw.get("spanId", "")),
        parent=str(parent) if parent else None,
        name=str(raw.get("name", "")),
        attributes=with_events(attributes(raw.get("attributes")), events(raw.get("events"))),
        start=millis(raw.get("startTimeUnixNano")),
        end=millis(raw.get("endTimeUnixNano")),
        error=(status.get("message") or "error") if failed else None,
    )


def read(documents: Iterable[Any], source: str) -> list[Transcript]:
    """The runs in OTLP/JSON documents."""
    traces: dict[str, dict[str, Span]] = {}
    for document in documents:
        if not shapes.otel(document):
            raise TraceError("expected an OTLP/JSON object with resourceSpans")
        for resource in document["resourceSpans"]:
            resource = mapping(resource)
            for scope in resource.get("scopeSpans") or resource.get("instrumentationLibrarySpans") or []:
                for raw in mapping(scope).get("spans") or []:
                    if isinstance(raw, Mapping):
                        traces.setdefault(str(raw.get("traceId", "")), {})[str(raw.get("spanId", ""))] = (
                            _span(raw)
                        )
    conversations: dict[str, list[tuple[float, Any, str | None, str]]] = {}
    for trace_id, spans in traces.items():
        listed = list(spans.values())
        turn, root = turn_of(listed, every_span_is_node=False)
        conversation = next(
            (
                str(span.attributes["gen_ai.conversation.id"])
                for span in listed
                if "gen_ai.conversation.id" in span.attributes
            ),
            trace_id,
        )
        start = min((span.start for span in listed if span.start is not None), default=0.0)
        conversations.setdefault(conversation, []).append((start, turn, root.error or None, trace_id))
    found = []
    for conversation, turns in conversations.items():
        turns.sort(key=lambda item: item[0])
        found.append(
            Transcript(
                turns=renumbered(turn for _, turn, _, _ in turns),
                run=conversation,
                source=f"{source} (trace {', '.join(t for *_, t in turns)})",
                error=turns[-1][2],
            )
        )
    return found
