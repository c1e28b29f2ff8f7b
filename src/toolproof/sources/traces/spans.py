"""Spans (Mibo canonical spans, OpenTelemetry GenAI spans) into one observed run.

The root span (no parent in the trace) carries the run: HTTP status, duration, usage, error. Spans with
`gen_ai.tool.name` (or operation `execute_tool`) are tool calls of their nearest node ancestor, or of the run.
Nodes are spans with `n8n.node.*` attributes and nested `invoke_agent` spans; in Mibo's canonical format every
other descendant is a node too. Spans are ordered by start time, in file order where that is missing or tied.
A tool call that appears both as a `tool_call` part of a chat span's output and as an `execute_tool` span is
counted once, from the span (it has the result and the duration); the part (matched by call id, else by name)
gives it its arguments when the span records none (they are opt-in there). The reply is the assistant text
that ended last; usage is the root's, else the sum over the other spans.

Messages may also arrive as span events (`with_events`): the GenAI `gen_ai.client.inference.operation.details`
event (carrying `gen_ai.input.messages` / `gen_ai.output.messages`), the older per-message events
(`gen_ai.system.message`, `gen_ai.user.message`, `gen_ai.assistant.message`, `gen_ai.tool.message`,
`gen_ai.choice`) and the older `gen_ai.content.prompt` / `gen_ai.content.completion` events. A call the model
asked for without an `execute_tool` span takes its result from the tool message that answers its id.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from toolproof.core.numbers import integer
from toolproof.model.transcript import Node, ToolCall, Transcript, Turn, Usage
from toolproof.sources.traces.values import arguments, content_text, maybe_json

CHAT_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})
_INDEXED = re.compile(r"gen_ai\.(prompt|completion)\.(\d+)\.(.+)")


@dataclass
class Span:
    """One span, whatever file it came from; times in milliseconds."""

    id: str
    parent: str | None
    name: str
    attributes: dict[str, Any] = field(default_factory=dict)
    start: float | None = None
    end: float | None = None
    error: str | None = None  # the status message (or "error") when the status code is ERROR

    @property
    def operation(self) -> str:
        return str(self.attributes.get("gen_ai.operation.name", ""))

    @property
    def is_tool(self) -> bool:
        return "gen_ai.tool.name" in self.attributes or self.operation == "execute_tool"

    @property
    def duration(self) -> float | None:
        return None if self.start is None or self.end is None else max(0.0, self.end - self.start)


def messages(span: Span, direction: str) -> list[Mapping[str, Any]]:
    """The span's input or output messages: `gen_ai.{direction}.messages`, or the older indexed
    `gen_ai.prompt.N.*` / `gen_ai.completion.N.*` attributes."""
    raw = maybe_json(span.attributes.get(f"gen_ai.{direction}.messages"))
    if isinstance(raw, list):
        return [item for item in raw if isinstance(item, Mapping)]
    prefix = "prompt" if direction == "input" else "completion"
    indexed: dict[int, dict[str, Any]] = {}
    for key, value in span.attributes.items():
        match = _INDEXED.fullmatch(key)
        if match and match[1] == prefix:
            indexed.setdefault(int(match[2]), {})[match[3]] = value
    found: list[Mapping[str, Any]] = []
    for _, fields in sorted(indexed.items()):
        parts: list[dict[str, Any]] = [{"type": "text", "content": fields.get("content", "")}]
        calls: dict[int, dict[str, Any]] = {}
        for key, value in fields.items():
            call = re.fullmatch(r"tool_calls\.(\d+)\.(\w+)", key)
            if call:
                calls.setdefault(int(call[1]), {"type": "tool_call"})[call[2]] = value
        parts.extend(calls[index] for index in sorted(calls))
        found.append(
            {"role": fields.get("role", "assistant" if prefix == "completion" else "user"), "parts": parts}
        )
    return found


_INPUT_EVENTS = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
_CONTENT_EVENTS = {
    "gen_ai.content.prompt": ("gen_ai.prompt", "user"),
    "gen_ai.content.completion": ("gen_ai.completion", "assistant"),
}


def _as_message(fields: Mapping[str, Any], role: str) -> dict[str, Any]:
    """An older-convention message (`content`, `tool_calls: [{id, function: {name, arguments}}]`, a tool
    message's `id`) as a `{role, parts}` message."""
    role = str(fields.get("role") or role)
    content = maybe_json(fields.get("content"))
    if role == "tool":
        answered = fields.get("id", fields.get("tool_call_id"))
        return {"role": role, "parts": [{"type": "tool_call_response", "id": answered, "response": content}]}
    parts: list[dict[str, Any]] = []
    text = content_text(content)
    if text:
        parts.append({"type": "text", "content": text})
    calls = maybe_json(fields.get("tool_calls"))
    for call in calls if isinstance(calls, list) else []:
        if isinstance(call, Mapping):
            function = maybe_json(call.get("function"))
            function = function if isinstance(function, Mapping) else call
            parts.append(
                {
                    "type": "tool_call",
                    "id": call.get("id"),
                    "name": function.get("name"),
                    "arguments": function.get("arguments"),
                }
            )
    return {"role": role, "parts": parts}


def with_events(
    attributes: Mapping[str, Any], events: Iterable[tuple[str, Mapping[str, Any]]]
) -> dict[str, Any]:
    """The span's attributes with the messages its GenAI events carry folded in as `gen_ai.input.messages`
    and `gen_ai.output.messages` (messages already in the attributes win)."""
    found = dict(attributes)
    inputs: list[Any] = []
    outputs: list[Any] = []
    for name, raw in events:
        fields = dict(raw)
        body = maybe_json(fields.pop("gen_ai.event.content", None))
        if isinstance(body, Mapping):
            fields = {**body, **fields}
        if name == "gen_ai.client.inference.operation.details":
            for direction, into in (("input", inputs), ("output", outputs)):
                listed = maybe_json(fields.get(f"gen_ai.{direction}.messages"))
                into.extend(listed if isinstance(listed, list) else [])
        elif name in _INPUT_EVENTS:
            inputs.append(_as_message(fields, _INPUT_EVENTS[name]))
        elif name == "gen_ai.choice":
            message = maybe_json(fields.get("message"))
            outputs.append(_as_message(message if isinstance(message, Mapping) else fields, "assistant"))
        elif name in _CONTENT_EVENTS:
            key, role = _CONTENT_EVENTS[name]
            listed = maybe_json(fields.get(key))
            if isinstance(listed, str):
                listed = [{"content": listed}]
            made = (
                [_as_message(m, role) for m in listed if isinstance(m, Mapping)]
                if isinstance(listed, list)
                else []
            )
            (inputs if role == "user" else outputs).extend(made)
    for direction, listed in (("input", inputs), ("output", outputs)):
        if listed and f"gen_ai.{direction}.messages" not in found:
            found[f"gen_ai.{direction}.messages"] = listed
    return found


def _parts(message: Mapping[str, Any]) -> list[Any]:
    parts = message.get("parts")
    if isinstance(parts, list):
        return parts
    return [{"type": "text", "content": message.get("content")}]


def message_text(message: Mapping[str, Any]) -> str:
    return content_text(
        [part for part in _parts(message) if isinstance(part, Mapping) and part.get("type", "text") == "text"]
    )


def _reply(span: Span) -> str:
    if isinstance(span.attributes.get("gen_ai.response.text"), str):
        return str(span.attributes["gen_ai.response.text"])
    texts = [message_text(m) for m in messages(span, "output") if m.get("role", "assistant") == "assistant"]
    texts = [text for text in texts if text]
    return texts[-1] if texts else ""


def _user(spans: Iterable[Span]) -> str:
    for span in spans:
        users = [message_text(m) for m in messages(span, "input") if m.get("role") == "user"]
        users = [text for text in users if text]
        if users:
            return users[-1]
    return ""


def _answers(spans: Iterable[Span]) -> dict[str, Any]:
    """Tool results by call id, from the tool messages (`tool_call_response` parts) of the spans' inputs."""
    found: dict[str, Any] = {}
    for span in spans:
        for message in messages(span, "input"):
            for part in _parts(message):
                if isinstance(part, Mapping) and part.get("type") == "tool_call_response" and part.get("id"):
                    found[str(part["id"])] = part.get("response", part.get("result"))
    return found


def _usage(span: Span) -> Usage | None:
    attributes = span.attributes
    usage = Usage(
        input_tokens=integer(
            attributes.get("gen_ai.usage.input_tokens", attributes.get("gen_ai.usage.prompt_tokens"))
        ),
        output_tokens=integer(
            attributes.get("gen_ai.usage.output_tokens", attributes.get("gen_ai.usage.completion_tokens"))
        ),
        total_tokens=integer(attributes.get("gen_ai.usage.total_tokens")),
    )
    return usage if usage.total is not None else None


def _total(usages: Iterable[Usage | None]) -> Usage | None:
    found = [usage for usage in usages if usage is not None]
    if not found:
        return None
    total = found[0]
    for usage in found[1:]:
        total = total + usage
    return total


def _call(span: Span, position: int, node: str | None) -> ToolCall:
    attributes = span.attributes
    return ToolCall(
        tool=str(attributes.get("gen_ai.tool.name", span.name)),
        arguments=arguments(attributes.get("gen_ai.tool.call.arguments")),
        result=maybe_json(attributes.get("gen_ai.tool.call.result")),
        is_error=span.error is not None,
        duration_ms=span.duration,
        position=position,
        node=node,
        id=str(attributes["gen_ai.tool.call.id"]) if "gen_ai.tool.call.id" in attributes else None,
    )


def _is_node(span: Span, every_span: bool) -> bool:
    if span.is_tool:
        return False
    if every_span or span.operation == "invoke_agent":
        return True
    return any(key.startswith("n8n.node.") for key in span.attributes)


def _node(span: Span, position: int, calls: tuple[ToolCall, ...]) -> Node:
    attributes = span.attributes
    status = attributes.get("n8n.node.status")
    return Node(
        name=str(attributes.get("gen_ai.agent.name", span.name))
        if span.operation == "invoke_agent"
        else span.name,
        type=str(attributes["n8n.node.type"]) if "n8n.node.type" in attributes else span.operation or None,
        status=str(status) if status is not None else ("error" if span.error else None),
        arguments=maybe_json(attributes.get("n8n.node.parameters")) or {},
        output=maybe_json(attributes.get("n8n.node.output", attributes.get("gen_ai.output.messages"))),
        error=span.error,
        calls=calls,
        position=position,
        duration_ms=span.duration,
    )


def _order(span: Span) -> float:
    """The sort key of spans: the start time, spans without one last. Sorts are stable, so spans keep their
    order in the file where start times are missing or equal."""
    return span.start if span.start is not None else float("inf")


def _tool_call_parts(span: Span) -> list[Mapping[str, Any]]:
    """The `tool_call` parts of a chat span's output messages: the calls the model asked for."""
    return [
        part
        for message in messages(span, "output")
        for part in _parts(message)
        if isinstance(part, Mapping) and part.get("type") == "tool_call"
    ]


def _requested(span: Span, part: Mapping[str, Any], start: float | None, answers: Mapping[str, Any]) -> Span:
    """A tool span for a call the chat span asked for but no span executed, answered by its tool message."""
    name = str(part.get("name", ""))
    call_id = part.get("id")
    attributes: dict[str, Any] = {
        "gen_ai.tool.name": name,
        "gen_ai.tool.call.arguments": part.get("arguments"),
    }
    if call_id:
        attributes["gen_ai.tool.call.id"] = call_id
        if str(call_id) in answers:
            attributes["gen_ai.tool.call.result"] = answers[str(call_id)]
    return Span(
        id=f"{span.id}/{call_id or name}", parent=span.parent, name=name, start=start, attributes=attributes
    )


def _with_arguments(span: Span, given: Any) -> Span:
    """The tool span with the arguments its chat span gave, when it records none of its own (they are opt-in
    on `execute_tool` spans)."""
    if given is None or "gen_ai.tool.call.arguments" in span.attributes:
        return span
    return replace(span, attributes={**span.attributes, "gen_ai.tool.call.arguments": given})


def _tool_spans(ordered: list[Span]) -> list[Span]:
    """Every tool call of the trace once, in order: the tool spans, and a span for each call a chat span asked
    for that no tool span executed. A chat span's `tool_call` part is the tool span with its id, else the next
    one of its name without an id; it gives that span its arguments when the span has none."""
    tools = [span for span in ordered if span.is_tool]
    by_id: dict[str, Span] = {}
    by_name: dict[str, list[Span]] = {}
    for span in tools:
        if "gen_ai.tool.call.id" in span.attributes:
            by_id[str(span.attributes["gen_ai.tool.call.id"])] = span
        else:
            by_name.setdefault(str(span.attributes.get("gen_ai.tool.name", span.name)), []).append(span)
    given: dict[str, Any] = {}
    extra: list[Span] = []
    answers = _answers(ordered)
    for span in ordered:
        if span.is_tool or span.operation not in CHAT_OPERATIONS:
            continue
        last = span.end if span.end is not None else span.start
        for part in _tool_call_parts(span):
            ran = by_id.get(str(part["id"])) if part.get("id") is not None else None
            unnamed = by_name.get(str(part.get("name", "")))
            if ran is None and unnamed:
                ran = unnamed.pop(0)
            if ran is not None:
                given.setdefault(ran.id, part.get("arguments"))
                last = ran.start if ran.start is not None else last
                continue
            # a call the model asked for but no span executed: placed right after the one before it
            last = None if last is None else last + 0.01
            extra.append(_requested(span, part, last, answers))
    return sorted([*(_with_arguments(span, given.get(span.id)) for span in tools), *extra], key=_order)


def turn_of(spans: list[Span], *, every_span_is_node: bool) -> tuple[Turn, Span]:
    """One turn from the spans of one trace (in file order), and its root span."""
    by_id = {span.id: span for span in spans}
    roots = [span for span in spans if span.parent is None or span.parent not in by_id]
    root = min(roots or spans, key=_order)  # parents that form a cycle: the earliest span is the root
    ordered = sorted(spans, key=_order)
    node_ids = {span.id for span in ordered if span is not root and _is_node(span, every_span_is_node)}

    def owner(span: Span) -> str | None:
        parent = span.parent
        seen = {span.id}
        while parent is not None and parent in by_id and parent not in seen:
            if parent in node_ids:
                return parent
            seen.add(parent)
            parent = by_id[parent].parent
        return None

    tools = _tool_spans(ordered)
    direct: list[ToolCall] = []
    nested: dict[str, list[ToolCall]] = {}
    for position, span in enumerate(tools):
        home = owner(span)
        home_name = by_id[home].name if home else None
        call = _call(span, position, home_name)
        (nested.setdefault(home, []) if home else direct).append(call)
    nodes = tuple(
        _node(span, index, tuple(nested.get(span.id, ())))
        for index, span in enumerate(span for span in ordered if span.id in node_ids)
    )
    texts = [
        (span.end if span.end is not None else float("-inf"), span is root, _reply(span))
        for span in ordered
        if not span.is_tool
    ]
    texts = [item for item in texts if item[2]]
    reply = max(texts, key=lambda item: (item[0], item[1]))[2] if texts else ""
    usage = _usage(root) or _total(_usage(span) for span in ordered if span is not root and not span.is_tool)
    status = integer(root.attributes.get("http.response.status_code"))
    turn = Turn(
        user=_user([root, *ordered]),
        reply=reply,
        calls=tuple(direct),
        nodes=nodes,
        usage=usage,
        http_status=status,
        duration_ms=root.duration,
    )
    return turn, root


def transcript(spans: list[Span], *, source: str, run: str | None, every_span_is_node: bool) -> Transcript:
    turn, root = turn_of(spans, every_span_is_node=every_span_is_node)
    return Transcript(turns=(turn,), run=run, source=source, started_ms=root.start, error=root.error or None)


def renumbered(turns: Iterable[Turn]) -> tuple[Turn, ...]:
    """The turns with call positions counted across the whole run."""
    found = []
    offset = 0
    for turn in turns:
        count = sum(1 for _ in turn.all_calls())
        calls = tuple(call.model_copy(update={"position": call.position + offset}) for call in turn.calls)
        nodes = tuple(
            node.model_copy(
                update={
                    "calls": tuple(
                        call.model_copy(update={"position": call.position + offset}) for call in node.calls
                    )
                }
            )
            for node in turn.nodes
        )
        found.append(turn.model_copy(update={"calls": calls, "nodes": nodes}))
        offset += count
    return tuple(found)
