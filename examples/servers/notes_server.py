"""notes: a small MCP server that keeps notes, written with the official SDK's MCPServer.

It exercises most of the protocol, so toolproof's demo and tests can assert on all of it:

  tools      add_note (structured output), get_note, list_notes, search_notes, delete_note (destructive),
             export_notes (JSON-RPC error for an unknown format), import_notes (progress), check_notes
             (log messages at several levels), summarize_notes (sampling), clear_notes (elicitation),
             workspace_roots (roots)
  resources  notes://all (subscribable: notifications/resources/updated when notes change) and the
             template notes://note/{note_id}
  prompts    review(style), draft_note(topic, audience, tone), with completions for style, tone
             (depending on the audience given as context) and note_id

Run it over stdio (the default), or `--transport streamable-http|sse --port 8000`.
"""

from __future__ import annotations

import argparse
import json
import warnings
from typing import Any

import anyio
import mcp_types as types
from mcp.server import MCPServer
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from pydantic import BaseModel, Field

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)  # 2025-era features, on purpose

ALL_NOTES = "notes://all"
LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
STYLES = ("short", "detailed", "bullet points")
TONES = {"team": ("casual", "friendly"), "customers": ("formal", "warm")}

server = MCPServer(
    "notes",
    version="1.0.0",
    instructions="Keeps short notes: add, find, read and delete them.",
    log_level="WARNING",
)


class Note(BaseModel):
    """One note."""

    id: int = Field(description="Identifier of the note")
    title: str
    body: str
    tags: list[str] = Field(default_factory=list)


class Confirm(BaseModel):
    """What clear_notes asks before deleting everything."""

    confirm: bool = Field(description="Delete every note?")


class State:
    """The server's memory: notes, the client's log level, and its resource subscriptions."""

    def __init__(self) -> None:
        self.notes: dict[int, Note] = {}
        self.next_id = 1
        self.log_level = "info"
        self.subscriptions: set[str] = set()

    def add(self, title: str, body: str, tags: list[str]) -> Note:
        note = Note(id=self.next_id, title=title, body=body, tags=tags)
        self.notes[note.id] = note
        self.next_id += 1
        return note

    def get(self, note_id: int) -> Note:
        """The note; an unknown id is a tool error (isError result)."""
        if note_id not in self.notes:
            raise ToolError(f"no note with id {note_id}")
        return self.notes[note_id]


state = State()
state.add("Welcome", "Notes keeps short notes. Try search_notes.", ["help"])
state.add("Shopping", "Milk, eggs, coffee.", ["home"])


async def log(ctx: Context, level: str, data: Any) -> None:
    """Send a log message if the client's level lets it through."""
    if LEVELS.index(level) >= LEVELS.index(state.log_level):
        await ctx.session.send_log_message(level=level, data=data, logger="notes")


async def changed(ctx: Context, *note_ids: int) -> None:
    """Tell subscribed clients which resources changed."""
    for uri in (ALL_NOTES, *(f"notes://note/{note_id}" for note_id in note_ids)):
        if uri in state.subscriptions:
            await ctx.session.send_resource_updated(uri)


@server.tool(annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=False))
async def add_note(title: str, body: str, ctx: Context, tags: list[str] | None = None) -> Note:
    """Add a note; returns the stored note with its id."""
    note = state.add(title, body, tags or [])
    await changed(ctx, note.id)
    return note


@server.tool(annotations=types.ToolAnnotations(read_only_hint=True))
def get_note(note_id: int) -> Note:
    """Return one note by id; an unknown id is a tool error."""
    return state.get(note_id)


@server.tool(annotations=types.ToolAnnotations(read_only_hint=True))
def list_notes(tag: str | None = None) -> list[Note]:
    """Return every note, or only those with the given tag."""
    return [note for note in state.notes.values() if tag is None or tag in note.tags]


@server.tool(annotations=types.ToolAnnotations(read_only_hint=True), structured_output=False)
def search_notes(query: str) -> str:
    """Return the notes whose title or body contains the query (case-insensitive), one per line."""
    needle = query.lower()
    found = [n for n in state.notes.values() if needle in n.title.lower() or needle in n.body.lower()]
    return "\n".join(f"#{n.id} {n.title}" for n in found) or f"no notes match {query!r}"


@server.tool(
    annotations=types.ToolAnnotations(destructive_hint=True, idempotent_hint=True), structured_output=False
)
async def delete_note(note_id: int, ctx: Context) -> str:
    """Delete a note by id; returns what was deleted."""
    note = state.get(note_id)
    del state.notes[note_id]
    await changed(ctx, note_id)
    return f"deleted #{note.id} {note.title}"


@server.tool(annotations=types.ToolAnnotations(read_only_hint=True), structured_output=False)
def export_notes(format: str = "json") -> str:
    """Export every note as "json" or "markdown"; another format is a JSON-RPC invalid-params error."""
    notes = list(state.notes.values())
    if format == "json":
        return json.dumps([note.model_dump() for note in notes])
    if format == "markdown":
        return "\n\n".join(f"## {note.title}\n\n{note.body}" for note in notes)
    raise MCPError(code=types.INVALID_PARAMS, message=f"unsupported format {format!r}: use json or markdown")


@server.tool(structured_output=False)
async def import_notes(ctx: Context, count: int = 3, delay: float = 0.05) -> str:
    """Import `count` sample notes slowly, reporting progress after each (when asked for progress)."""
    for number in range(1, count + 1):
        await anyio.sleep(delay)
        note = state.add(f"Imported {number}", f"Sample note {number} of {count}.", ["imported"])
        await ctx.report_progress(number, count, f"imported {number} of {count}")
        await changed(ctx, note.id)
    return f"imported {count} notes"


@server.tool(annotations=types.ToolAnnotations(read_only_hint=True), structured_output=False)
async def check_notes(ctx: Context) -> str:
    """Check the notes, logging what it finds at debug, info, warning and error level."""
    notes = list(state.notes.values())
    untagged = [note for note in notes if not note.tags]
    await log(ctx, "debug", f"checking {len(notes)} notes")
    await log(ctx, "info", {"notes": len(notes), "untagged": len(untagged)})
    await log(ctx, "warning", f"{len(untagged)} notes have no tags")
    await log(ctx, "error", "check finished with warnings" if untagged else "check finished")
    return f"checked {len(notes)} notes"


@server.tool(annotations=types.ToolAnnotations(read_only_hint=True), structured_output=False)
async def summarize_notes(ctx: Context) -> str:
    """Ask the client's model (sampling) to summarize the notes."""
    listing = "\n".join(f"- {note.title}: {note.body}" for note in state.notes.values())
    prompt = types.TextContent(type="text", text=f"Summarize these notes in one sentence:\n{listing}")
    reply = await ctx.session.create_message(
        messages=[types.SamplingMessage(role="user", content=prompt)], max_tokens=200
    )
    text = reply.content.text if isinstance(reply.content, types.TextContent) else str(reply.content)
    return f"Summary ({reply.model}): {text}"


@server.tool(annotations=types.ToolAnnotations(destructive_hint=True), structured_output=False)
async def clear_notes(ctx: Context) -> str:
    """Delete every note after the user confirms (elicitation)."""
    count = len(state.notes)
    answer = await ctx.elicit(f"Delete all {count} notes?", Confirm)
    if answer.action != "accept":
        return f"{answer.action}: kept {count} notes"
    if not answer.data.confirm:
        return f"not confirmed: kept {count} notes"
    ids = list(state.notes)
    state.notes.clear()
    await changed(ctx, *ids)
    return f"deleted {count} notes"


@server.tool(annotations=types.ToolAnnotations(read_only_hint=True), structured_output=False)
async def workspace_roots(ctx: Context) -> str:
    """List the client's roots (roots/list), one "name: uri" per line."""
    roots = (await ctx.session.list_roots()).roots
    return "\n".join(f"{root.name}: {root.uri}" for root in roots) or "no roots"


@server.resource(ALL_NOTES, mime_type="application/json", description="Every note, as JSON")
def all_notes() -> str:
    return json.dumps([note.model_dump() for note in state.notes.values()])


@server.resource("notes://note/{note_id}", mime_type="text/markdown", description="One note, as Markdown")
def one_note(note_id: str) -> str:
    note = state.notes.get(int(note_id)) if note_id.isdigit() else None
    if note is None:
        raise ResourceNotFoundError(f"no note with id {note_id}")
    return f"# {note.title}\n\n{note.body}"


@server.prompt()
def review(style: str = "short") -> str:
    """Ask for a review of the notes in the given style."""
    return f"Review my {len(state.notes)} notes and give {style} feedback on each."


@server.prompt()
def draft_note(topic: str, audience: str = "team", tone: str = "friendly") -> str:
    """Ask for a new note on a topic, for an audience, in a tone."""
    return f"Draft a {tone} note about {topic} for the {audience}."


@server.completion()  # type: ignore[untyped-decorator,no-untyped-call]  # the SDK leaves it untyped
async def complete(
    ref: types.PromptReference | types.ResourceTemplateReference,
    argument: types.CompletionArgument,
    context: types.CompletionContext | None,
) -> types.Completion | None:
    """Completions for review.style, draft_note.tone (by the audience in context) and note_id."""
    candidates: tuple[str, ...]
    if isinstance(ref, types.ResourceTemplateReference):
        candidates = tuple(str(note_id) for note_id in state.notes) if argument.name == "note_id" else ()
    elif ref.name == "review" and argument.name == "style":
        candidates = STYLES
    elif ref.name == "draft_note" and argument.name == "tone":
        audience = (context.arguments or {}).get("audience") if context else None
        candidates = TONES.get(audience or "", ()) or tuple(t for tones in TONES.values() for t in tones)
    else:
        return None
    values = [value for value in candidates if value.startswith(argument.value)]
    return types.Completion(values=values, total=len(values), has_more=False)


async def set_level(ctx: ServerRequestContext[Any], params: types.SetLevelRequestParams) -> types.EmptyResult:
    state.log_level = params.level
    return types.EmptyResult()


async def subscribe(
    ctx: ServerRequestContext[Any], params: types.SubscribeRequestParams
) -> types.EmptyResult:
    state.subscriptions.add(str(params.uri))
    return types.EmptyResult()


async def unsubscribe(
    ctx: ServerRequestContext[Any], params: types.UnsubscribeRequestParams
) -> types.EmptyResult:
    state.subscriptions.discard(str(params.uri))
    return types.EmptyResult()


# MCPServer serves neither logging/setLevel nor the 2025-era resources/subscribe: register them.
lowlevel = server._lowlevel_server
lowlevel.add_request_handler("logging/setLevel", types.SetLevelRequestParams, set_level)
lowlevel.add_request_handler("resources/subscribe", types.SubscribeRequestParams, subscribe)
lowlevel.add_request_handler("resources/unsubscribe", types.UnsubscribeRequestParams, unsubscribe)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transport", choices=["stdio", "streamable-http", "sse"], default="stdio")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    options = parser.parse_args()
    if options.transport == "stdio":
        server.run()
    else:
        server.run(options.transport, host=options.host, port=options.port)


if __name__ == "__main__":
    main()
