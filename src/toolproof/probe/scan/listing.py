"""What one server told the model (`Listing`), and every piece of text in it as a `Surface` (pure)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolproof.probe.scan.findings import SERVER, Surface
from toolproof.probe.tools import Tool, tool_name

MAX_SCHEMA_DEPTH = 8


@dataclass(frozen=True)
class Listing:
    """One server's tools, instructions, prompts and resources as listed; `relisted` is the tool list
    listed again after `notifications/tools/list_changed` (None: no such notification came)."""

    server: str
    tools: Sequence[Tool]
    instructions: str = ""
    prompts: Sequence[Mapping[str, Any]] = ()
    resources: Sequence[Mapping[str, Any]] = ()
    relisted: Sequence[Tool] | None = None
    responses: Mapping[str, str] = field(default_factory=dict)
    """The text each benign call answered, by tool name."""


def surfaces(listing: Listing) -> Iterator[Surface]:
    """Every text the server shows the model, in listing order: instructions, each tool's title,
    description and parameter descriptions, then prompts and resources."""
    server = listing.server
    if listing.instructions:
        yield Surface(server, SERVER, "instructions", listing.instructions)
    for tool in listing.tools:
        yield from tool_surfaces(server, tool)
    for prompt in listing.prompts:
        name = f"prompt:{prompt.get('name', '')}"
        yield from _texts(server, SERVER, name, prompt, ("title", "description"))
        for argument in _mappings(prompt.get("arguments")):
            where = f"{name}.args.{argument.get('name', '')}"
            yield from _texts(server, SERVER, where, argument, ("title", "description"))
    for resource in listing.resources:
        name = f"resource:{resource.get('uri') or resource.get('uriTemplate') or resource.get('name', '')}"
        yield from _texts(server, SERVER, name, resource, ("name", "title", "description"))


def tool_surfaces(server: str, tool: Tool) -> Iterator[Surface]:
    """The texts of one tool: title, annotation title, description, then each parameter's (nested too)."""
    name = tool_name(tool)
    for key in ("title", "description"):
        text = tool.get(key)
        if isinstance(text, str) and text:
            yield Surface(server, name, key, text, tool)
    annotations = tool.get("annotations")
    title = annotations.get("title") if isinstance(annotations, Mapping) else None
    if isinstance(title, str) and title:
        yield Surface(server, name, "annotations.title", title, tool)
    yield from _schema_texts(server, tool, tool.get("inputSchema"), "args", 0)


def _schema_texts(server: str, tool: Tool, schema: Any, where: str, depth: int) -> Iterator[Surface]:
    if not isinstance(schema, Mapping) or depth > MAX_SCHEMA_DEPTH:
        return
    name = tool_name(tool)
    for key in ("title", "description"):
        text = schema.get(key)
        if depth and isinstance(text, str) and text:
            yield Surface(server, name, f"{where}.{key}", text, tool)
    enum = schema.get("enum")
    for value in enum if isinstance(enum, list) else ():
        if isinstance(value, str) and value:
            yield Surface(server, name, f"{where}.enum", value, tool)
    properties = schema.get("properties")
    for key, inner in properties.items() if isinstance(properties, Mapping) else ():
        yield from _schema_texts(server, tool, inner, f"{where}.{key}", depth + 1)
    items = schema.get("items")
    if isinstance(items, Mapping):
        yield from _schema_texts(server, tool, items, f"{where}[]", depth + 1)


def _texts(
    server: str, tool: str, where: str, holder: Mapping[str, Any], keys: Sequence[str]
) -> Iterator[Surface]:
    for key in keys:
        text = holder.get(key)
        if isinstance(text, str) and text:
            yield Surface(server, tool, f"{where}.{key}", text)


def _mappings(value: Any) -> list[Mapping[str, Any]]:
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []
