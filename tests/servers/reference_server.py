"""reference: the official conformance suite's server fixtures on the official Python SDK's MCPServer.

The official suite's server scenarios call tools, resources and prompts that only its fixture server has
(`test_image_content`, `test://static-binary`, `test_prompt_with_image`, ...): this server has every one of
them, with the content the scenarios expect, so the official suite and `toolproof conformance` can be run
side by side on one server. The SDK serves whichever protocol era the client speaks; the fixtures of the
2026-07-28 era (input_required results, SEP-2575's diagnostic tools, a custom header) are in
reference_modern.py.

Run it over stdio (the default), or `--transport streamable-http --port 8000` (endpoint /mcp; SSE polling,
SEP-1699, with an in-memory event store and a short retry interval).
"""

from __future__ import annotations

import argparse
import base64
import itertools
import json
import warnings
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server import MCPServer
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context, UserMessage
from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamId
from mcp.shared.exceptions import MCPDeprecationWarning
from reference_extensions import EXTENSIONS  # the extension scenarios' fixtures
from reference_extensions import register as register_extensions
from reference_modern import register as register_modern  # the 2026-07-28 era's fixtures

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)  # 2025-era features, on purpose

# A 1x1 red PNG and a minimal WAV, as the official fixtures send them.
IMAGE = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
AUDIO = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
# The json-schema-2020-12 tool's inputSchema, as the official fixture declares it (the client scenario's
# adapter, tests/conformance/client_adapter.py, echoes the same schema back).
SCHEMA_FILE = Path(__file__).parents[1] / "data" / "json-schema-2020-12.json"
SCHEMA_2020_12 = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
DEFAULTS_FORM: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {
            "type": "string",
            "description": "User status",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "description": "Verification status", "default": True},
    },
    "required": [],
}
TITLED = [
    {"const": f"value{n}", "title": f"{word} Option"}
    for n, word in enumerate(("First", "Second", "Third"), 1)
]
CHOICES = [
    {"const": f"value{n}", "title": f"{word} Choice"}
    for n, word in enumerate(("First", "Second", "Third"), 1)
]
OPTIONS = ["option1", "option2", "option3"]
ENUMS_FORM: dict[str, Any] = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "description": "Select one option", "enum": OPTIONS},
        "titledSingle": {"type": "string", "description": "Select one option with titles", "oneOf": TITLED},
        "legacyEnum": {
            "type": "string",
            "description": "Select one option (legacy)",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "description": "Select multiple options",
            "minItems": 1,
            "maxItems": 3,
            "items": {"type": "string", "enum": OPTIONS},
        },
        "titledMulti": {
            "type": "array",
            "description": "Select multiple options with titles",
            "minItems": 1,
            "maxItems": 3,
            "items": {"anyOf": CHOICES},
        },
    },
    "required": [],
}

server = MCPServer("mcp-conformance-test-server", version="1.0.0", log_level="WARNING", extensions=EXTENSIONS)
register_extensions(server)
subscriptions: set[str] = set()


def text(value: str) -> types.TextContent:
    return types.TextContent(type="text", text=value)


def embedded(uri: str, mime_type: str, value: str) -> types.EmbeddedResource:
    resource = types.TextResourceContents(uri=uri, mime_type=mime_type, text=value)
    return types.EmbeddedResource(type="resource", resource=resource)


def image() -> types.ImageContent:
    return types.ImageContent(type="image", data=IMAGE, mime_type="image/png")


@server.tool(description="Tests simple text content response")
def test_simple_text() -> list[types.ContentBlock]:
    return [text("This is a simple text response for testing.")]


@server.tool(description="Tests image content response")
def test_image_content() -> list[types.ContentBlock]:
    return [image()]


@server.tool(description="Tests audio content response")
def test_audio_content() -> list[types.ContentBlock]:
    return [types.AudioContent(type="audio", data=AUDIO, mime_type="audio/wav")]


@server.tool(description="Tests embedded resource content response")
def test_embedded_resource() -> list[types.ContentBlock]:
    return [embedded("test://embedded-resource", "text/plain", "This is an embedded resource content.")]


@server.tool(description="Tests response with multiple content types (text, image, resource)")
def test_multiple_content_types() -> list[types.ContentBlock]:
    document = json.dumps({"test": "data", "value": 123})
    return [
        text("Multiple content types test:"),
        image(),
        embedded("test://mixed-content-resource", "application/json", document),
    ]


@server.tool(description="Tests tool that emits log messages during execution")
async def test_tool_with_logging(ctx: Context) -> list[types.ContentBlock]:
    for step in ("Tool execution started", "Tool processing data", "Tool execution completed"):
        await ctx.session.send_log_message(
            level="info", data=step, related_request_id=ctx.request_context.request_id
        )
        await anyio.sleep(0.05)
    return [text("Tool with logging executed successfully")]


@server.tool(description="Tests tool that reports progress notifications")
async def test_tool_with_progress(ctx: Context) -> list[types.ContentBlock]:
    for progress in (0, 50, 100):
        await ctx.report_progress(progress, 100, f"Completed step {progress} of 100")
        await anyio.sleep(0.05)
    meta = ctx.request_context.meta
    token = meta.get("progressToken", 0) if isinstance(meta, dict) else getattr(meta, "progress_token", 0)
    return [text(str(token))]


@server.tool(description="Tests error response handling")
def test_error_handling() -> str:
    raise RuntimeError("This tool intentionally returns an error for testing")


@server.tool(description="Tests SSE stream disconnection and client reconnection (SEP-1699)")
async def test_reconnection(ctx: Context) -> list[types.ContentBlock]:
    await ctx.close_sse_stream()
    await anyio.sleep(0.1)
    return [text("Reconnection test completed successfully.")]


@server.tool(description="Tests server-initiated sampling (LLM completion request)")
async def test_sampling(prompt: str, ctx: Context) -> list[types.ContentBlock]:
    message = types.SamplingMessage(role="user", content=text(prompt))
    reply = await ctx.session.create_message(
        messages=[message], max_tokens=100, related_request_id=ctx.request_context.request_id
    )
    said = reply.content.text if isinstance(reply.content, types.TextContent) else "No response"
    return [text(f"LLM response: {said}")]


async def elicited(ctx: Context, message: str, form: dict[str, Any]) -> list[types.ContentBlock]:
    answer = await ctx.session.elicit_form(message, form, ctx.request_context.request_id)
    return [
        text(f"Elicitation completed: action={answer.action}, content={json.dumps(answer.content or {})}")
    ]


@server.tool(description="Tests server-initiated elicitation (user input request)")
async def test_elicitation(message: str, ctx: Context) -> list[types.ContentBlock]:
    form = {
        "type": "object",
        "properties": {"response": {"type": "string", "description": "User's response"}},
        "required": ["response"],
    }
    return await elicited(ctx, message, form)


@server.tool(description="Tests elicitation with default values per SEP-1034")
async def test_elicitation_sep1034_defaults(ctx: Context) -> list[types.ContentBlock]:
    return await elicited(ctx, "Please review and update the form fields with defaults", DEFAULTS_FORM)


@server.tool(description="Tests elicitation with enum schema improvements per SEP-1330")
async def test_elicitation_sep1330_enums(ctx: Context) -> list[types.ContentBlock]:
    return await elicited(ctx, "Please select options from the enum fields", ENUMS_FORM)


@server.tool(description="Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)")
def json_schema_2020_12_tool(name: str | None = None, address: dict[str, str] | None = None) -> str:
    return f"JSON Schema 2020-12 tool called with: {json.dumps({'name': name, 'address': address})}"


# tools/list shows the raw 2020-12 schema ($schema, $defs, additionalProperties) the scenario looks for.
server._tool_manager.get_tool("json_schema_2020_12_tool").parameters = SCHEMA_2020_12  # type: ignore[union-attr]


@server.resource(
    "test://static-text", name="static-text", title="Static Text Resource", mime_type="text/plain"
)
def static_text() -> str:
    """A static text resource for testing"""
    return "This is the content of the static text resource."


@server.resource(
    "test://static-binary", name="static-binary", title="Static Binary Resource", mime_type="image/png"
)
def static_binary() -> bytes:
    """A static binary resource (image) for testing"""
    return base64.b64decode(IMAGE)


@server.resource(
    "test://template/{id}/data", name="template", title="Resource Template", mime_type="application/json"
)
def template(id: str) -> str:
    """A resource template with parameter substitution"""
    return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})


@server.resource(
    "test://watched-resource", name="watched-resource", title="Watched Resource", mime_type="text/plain"
)
def watched() -> str:
    """A resource that can be subscribed to"""
    return "Watched resource content"


@server.prompt(title="Simple Test Prompt")
def test_simple_prompt() -> str:
    """A simple prompt without arguments"""
    return "This is a simple prompt for testing."


@server.prompt(title="Prompt With Arguments")
def test_prompt_with_arguments(arg1: str, arg2: str) -> str:
    """A prompt with required arguments"""
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


@server.prompt(title="Prompt With Embedded Resource")
def test_prompt_with_embedded_resource(resourceUri: str) -> list[UserMessage]:  # the fixture's name
    """A prompt that includes an embedded resource"""
    return [
        UserMessage(content=embedded(resourceUri, "text/plain", "Embedded resource content for testing.")),
        UserMessage(content=text("Please process the embedded resource above.")),
    ]


@server.prompt(title="Prompt With Image")
def test_prompt_with_image() -> list[UserMessage]:
    """A prompt that includes image content"""
    return [UserMessage(content=image()), UserMessage(content=text("Please analyze the image above."))]


@server.completion()  # type: ignore[untyped-decorator,no-untyped-call]  # the SDK leaves it untyped
async def complete(
    ref: types.PromptReference | types.ResourceTemplateReference,
    argument: types.CompletionArgument,
    context: types.CompletionContext | None,
) -> types.Completion:
    return types.Completion(values=[], total=0, has_more=False)


async def set_level(ctx: ServerRequestContext[Any], params: types.SetLevelRequestParams) -> types.EmptyResult:
    await ctx.session.send_log_message(level="info", data=f"Log level set to: {params.level}")
    return types.EmptyResult()


async def subscribe(
    ctx: ServerRequestContext[Any], params: types.SubscribeRequestParams
) -> types.EmptyResult:
    subscriptions.add(str(params.uri))
    return types.EmptyResult()


async def unsubscribe(
    ctx: ServerRequestContext[Any], params: types.UnsubscribeRequestParams
) -> types.EmptyResult:
    subscriptions.discard(str(params.uri))
    return types.EmptyResult()


# MCPServer serves neither logging/setLevel nor the 2025-era resources/subscribe: register them.
lowlevel = server._lowlevel_server
lowlevel.add_request_handler("logging/setLevel", types.SetLevelRequestParams, set_level)
lowlevel.add_request_handler("resources/subscribe", types.SubscribeRequestParams, subscribe)
lowlevel.add_request_handler("resources/unsubscribe", types.UnsubscribeRequestParams, unsubscribe)


register_modern(server)  # the 2026-07-28 era's fixtures


class MemoryEventStore(EventStore):
    """Every event of every stream, kept so a client reconnecting with Last-Event-ID gets what it missed."""

    def __init__(self) -> None:
        self.events: list[tuple[EventId, StreamId, types.JSONRPCMessage | None]] = []
        self.numbers = itertools.count(1)

    async def store_event(self, stream_id: StreamId, message: types.JSONRPCMessage | None) -> EventId:
        event_id = f"{stream_id}::{next(self.numbers):08d}"
        self.events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(
        self, last_event_id: EventId, send_callback: EventCallback
    ) -> StreamId | None:
        stream = next((s for e, s, _ in self.events if e == last_event_id), None)
        if stream is None:
            return None
        for event_id, stream_id, message in self.events:
            if stream_id == stream and event_id > last_event_id and message is not None:
                await send_callback(EventMessage(message, event_id))
        return stream


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transport", choices=["stdio", "streamable-http"], default="stdio")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    options = parser.parse_args()
    if options.transport == "stdio":
        server.run()
    else:
        store = MemoryEventStore()
        server.run(
            "streamable-http", host=options.host, port=options.port, event_store=store, retry_interval=500
        )


if __name__ == "__main__":
    main()
