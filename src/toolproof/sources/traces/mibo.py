"""Mibo trace bodies: legacy `{data, metadata}` (Custom API, n8n, Flowise) and canonical `{spans: [...]}`.

Legacy bodies: `metadata.http_status` and `metadata.duration_ms` become the turn's status and duration, and
`data` is the response body that JSON checks and token usage read. Mibo parses `data` by the platform's type;
here the platform is given or recognised from the data:
- n8n, the flat map of the Mibo node: `{status, data: {"<Node>": {output, type, status, parameters,
  tools_called: [{name, input, output, status}]}}}`; or the node list `{nodes: [{nodeName, items}]}`; or the
  execution data of n8n's API, `{data: {resultData: {runData}}, workflowData}` (see `n8n_execution`);
- Flowise, its prediction response: `{text, question, chatId, usedTools: [{tool, toolInput, toolOutput}],
  agentReasoning?: [{agentName, usedTools}]}`;
- Custom API: reply from `text`, `message`, `content`, `output`, `answer` or `response`; tools from
  `tool_calls: [{name, arguments}]`; nodes from top-level keys whose value has an `output`.
For n8n the reply is the output of the last AI node (type naming a model provider), else of the last node
that is not a trigger.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from toolproof.core.numbers import integer
from toolproof.model.transcript import Node, Platform, ToolCall, Transcript, Turn
from toolproof.sources.traces import n8n_execution
from toolproof.sources.traces.errors import TraceError
from toolproof.sources.traces.otel import attributes, events
from toolproof.sources.traces.spans import Span, transcript, with_events
from toolproof.sources.traces.values import (
    arguments,
    lookup,
    mapping,
    maybe_json,
    millis,
    text_or_none,
)

PLATFORMS: tuple[Platform, ...] = ("custom", "n8n", "flowise")
TEXT_KEYS = ("text", "message", "content", "output", "answer", "response")
N8N_TEXT_KEYS = ("text", "output", "message", "content", "response")
_AI_NODE = re.compile(r"langchain|openai|anthropic|azure|gemini|ollama", re.IGNORECASE)
_TRIGGER = re.compile(r"webhook|trigger|start|manualtrigger", re.IGNORECASE)


def platform_of(data: Any, metadata: Mapping[str, Any]) -> Platform:
    """The platform whose parser reads `data`."""
    if isinstance(data, Mapping):
        inner = data.get("data")
        if (
            "status" in data
            and isinstance(inner, Mapping)
            and any(isinstance(node, Mapping) and "output" in node for node in inner.values())
        ):
            return "n8n"
        if isinstance(data.get("nodes"), list) or "workflowId" in metadata or n8n_execution.looks_like(data):
            return "n8n"
        if (
            "usedTools" in data
            or "agentReasoning" in data
            or "chatflowId" in metadata
            or ("text" in data and {"chatId", "chatMessageId", "sessionId", "question"} & set(data))
        ):
            return "flowise"
    return "custom"


def _text_of(value: Any, keys: tuple[str, ...]) -> str | None:
    """The first string under one of `keys` (looking into the last item of a list), or a string value."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value:
        return _text_of(value[-1], keys)
    if isinstance(value, Mapping):
        for key in keys:
            found = value.get(key)
            if isinstance(found, str):
                return found
        for key in keys:
            if isinstance(value.get(key), Mapping | list):
                nested = _text_of(value[key], keys)
                if nested is not None:
                    return nested
    return None


def _tool_calls(raw: Any, node: str | None, start: int) -> list[ToolCall]:
    calls: list[ToolCall] = []
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, Mapping):
            continue
        name = item.get("name", item.get("tool"))
        status = item.get("status")
        calls.append(
            ToolCall(
                tool=str(name or ""),
                arguments=arguments(item.get("arguments", item.get("input", item.get("toolInput")))),
                result=maybe_json(item.get("output", item.get("toolOutput"))),
                is_error=status == "error" or bool(item.get("error")),
                position=start + len(calls),
                node=node,
            )
        )
    return calls


def _unwrap(items: Any) -> Any:
    if isinstance(items, list) and len(items) == 1:
        item = items[0]
        return item.get("json", item) if isinstance(item, Mapping) else item
    if isinstance(items, list):
        return [item.get("json", item) if isinstance(item, Mapping) else item for item in items]
    return items


def _n8n_reply(nodes: list[Node]) -> str:
    ai = [node for node in nodes if node.type and _AI_NODE.search(node.type)]
    others = [node for node in nodes if not (node.type and _TRIGGER.search(node.type))]
    for group in (ai, others):
        for node in reversed(group):
            text = _text_of(node.output, N8N_TEXT_KEYS)
            if text is not None:
                return text
    return ""


def _n8n(data: Mapping[str, Any]) -> tuple[str, list[ToolCall], list[Node]]:
    if n8n_execution.looks_like(data):
        executed = n8n_execution.read(data)
        return _n8n_reply(executed), [], executed
    nodes: list[Node] = []
    position = 0
    if isinstance(data.get("nodes"), list):
        entries = [
            (str(item.get("nodeName", item.get("name", ""))), item)
            for item in data["nodes"]
            if isinstance(item, Mapping)
        ]
    else:
        inner = mapping(data.get("data"))
        entries = [(str(name), item) for name, item in inner.items() if isinstance(item, Mapping)]
    for name, item in entries:
        calls = _tool_calls(item.get("tools_called"), name, position)
        position += len(calls)
        output = item["output"] if "output" in item else _unwrap(item.get("items"))
        node_type = item.get("type", item.get("nodeType"))
        nodes.append(
            Node(
                name=name,
                type=str(node_type) if node_type is not None else None,
                status=str(item["status"]) if "status" in item else None,
                arguments=maybe_json(item.get("parameters")) or {},
                output=output,
                error=str(item["error"]) if item.get("error") else None,
                calls=tuple(calls),
                position=len(nodes),
            )
        )
    return _n8n_reply(nodes), [], nodes


def _flowise(data: Mapping[str, Any]) -> tuple[str, list[ToolCall], list[Node]]:
    reasoning = data.get("agentReasoning")
    if isinstance(reasoning, list) and reasoning:
        nodes: list[Node] = []
        position = 0
        for item in reasoning:
            if not isinstance(item, Mapping):
                continue
            name = str(item.get("agentName", f"agent {len(nodes) + 1}"))
            calls = _tool_calls(item.get("usedTools"), name, position)
            position += len(calls)
            output = item.get("instructions", item.get("messages"))
            nodes.append(Node(name=name, output=output, calls=tuple(calls), position=len(nodes)))
        return str(data.get("text", "")), [], nodes
    return str(data.get("text", "")), _tool_calls(data.get("usedTools"), None, 0), []


def _custom(data: Any, response_path: str | None) -> tuple[str, list[ToolCall], list[Node]]:
    if not isinstance(data, Mapping):
        return (data if isinstance(data, str) else json.dumps(data)), [], []
    text = _at(data, response_path) if response_path else None
    if text is None:
        text = next((data[key] for key in TEXT_KEYS if isinstance(data.get(key), str)), None)
    calls = _tool_calls(data.get("tool_calls"), None, 0)
    nodes: list[Node] = []
    position = len(calls)
    for name, item in data.items():
        if isinstance(item, Mapping) and "output" in item:
            nested = _tool_calls(item.get("tools_called"), name, position)
            position += len(nested)
            nodes.append(
                Node(
                    name=str(name),
                    type=text_or_none(item.get("type")),
                    status=text_or_none(item.get("status")),
                    arguments=maybe_json(item.get("parameters")) or {},
                    output=item["output"],
                    calls=tuple(nested),
                    position=len(nodes),
                )
            )
    return (text if text is not None else json.dumps(data, ensure_ascii=False)), calls, nodes


def _at(data: Any, path: str) -> str | None:
    found = lookup(data, path)
    if found is None:
        return None
    return found if isinstance(found, str) else json.dumps(found, ensure_ascii=False)


def read_legacy(
    document: Mapping[str, Any],
    source: str,
    platform: Platform | None = None,
    response_path: str | None = None,
) -> Transcript:
    """One run from a legacy `{data, metadata}` body."""
    data = document.get("data")
    metadata = mapping(document.get("metadata"))
    kind = platform or platform_of(data, metadata)
    if kind == "n8n" and isinstance(data, Mapping):
        reply, calls, nodes = _n8n(data)
    elif kind == "flowise" and isinstance(data, Mapping):
        reply, calls, nodes = _flowise(data)
    else:
        reply, calls, nodes = _custom(data, response_path)
    user = next(
        (
            str(source_)
            for source_ in (
                metadata.get("input"),
                metadata.get("input_utterance"),
                data.get("question") if isinstance(data, Mapping) else None,
                data.get("input") if isinstance(data, Mapping) else None,
            )
            if isinstance(source_, str)
        ),
        "",
    )
    duration = metadata.get("duration_ms")
    turn = Turn(
        user=user,
        reply=reply,
        calls=tuple(calls),
        nodes=tuple(nodes),
        http_status=integer(metadata.get("http_status")),
        duration_ms=float(duration)
        if isinstance(duration, int | float) and not isinstance(duration, bool)
        else None,
        body=data,
    )
    run = metadata.get("request_id") or metadata.get("executionId") or document.get("platformId")
    return Transcript(
        turns=(turn,),
        run=str(run) if run else None,
        source=source,
        scenario=str(metadata["scenario"]) if "scenario" in metadata else None,
        platform=kind,
    )


def read_canonical(document: Mapping[str, Any], source: str) -> Transcript:
    """One run from a canonical `{spans: [...]}` body."""
    spans = []
    for index, raw in enumerate(document["spans"]):
        if not isinstance(raw, Mapping) or "span_id" not in raw:
            raise TraceError(f"spans[{index}] is not a span with a span_id")
        status = mapping(raw.get("status"))
        failed = status.get("code") == 2
        spans.append(
            Span(
                id=str(raw["span_id"]),
                parent=str(raw["parent_span_id"]) if raw.get("parent_span_id") else None,
                name=str(raw.get("name", "")),
                attributes=with_events(attributes(raw.get("attributes")), events(raw.get("events"))),
                start=millis(raw.get("start_time_unix_nano")),
                end=millis(raw.get("end_time_unix_nano")),
                error=(status.get("message") or "error") if failed else None,
            )
        )
    if not spans:
        raise TraceError("the trace has no spans")
    metadata = mapping(document.get("metadata"))
    run = metadata.get("request_id") or metadata.get("trace_id")
    found = transcript(spans, source=source, run=str(run) if run else None, every_span_is_node=True)
    if "scenario" in metadata:
        found = found.model_copy(update={"scenario": str(metadata["scenario"])})
    return found
