"""The official conformance suite's fixtures of the 2026-07-28 era, on reference_server.py's MCPServer.

SEP-2322 input_required results: tools (and a prompt) that ask for elicitation, sampling or roots through an
input_required result (the SDK seals `requestState`, so a tampered one is refused), only for capabilities the
client declared (-32021 otherwise); SEP-2575's diagnostic tools (a tool that needs sampling, one that logs,
one that asks mid-call, hooks that announce a changed tool or prompt list); a tool whose `region` argument
is mirrored in the `Mcp-Param-Region` header (SEP-2243). In the handshake era the asking tools say so in
text: input_required results belong to the 2026-07-28 era.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.server import MCPServer
from mcp.server.mcpserver import Context, UserMessage
from mcp.shared.exceptions import MCPError

ERA = "2026-07-28"
NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
CITY_FORM = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
CONFIRM_FORM = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
CONTEXT_FORM = {"type": "object", "properties": {"context": {"type": "string"}}, "required": ["context"]}
CUSTOM_HEADER_SCHEMA = {
    "type": "object",
    "properties": {"region": {"type": "string", "description": "Where to look", "x-mcp-header": "Region"}},
    "required": ["region"],
}
NEEDS = {"elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots"}
HANDSHAKE_NOTE = "input_required results belong to the 2026-07-28 era"

Asked = list[types.ContentBlock] | types.InputRequiredResult


def text(value: str) -> list[types.ContentBlock]:
    return [types.TextContent(type="text", text=value)]


def elicit(message: str, form: dict[str, Any]) -> dict[str, Any]:
    return {"method": "elicitation/create", "params": {"message": message, "requestedSchema": form}}


def sample(question: str) -> dict[str, Any]:
    message = {"role": "user", "content": {"type": "text", "text": question}}
    return {"method": "sampling/createMessage", "params": {"messages": [message], "maxTokens": 100}}


ROOTS: dict[str, Any] = {"method": "roots/list", "params": {}}
CONFIRM = {"confirm": elicit("Please confirm", CONFIRM_FORM)}


def modern(ctx: Context) -> bool:
    return ctx.protocol_version == ERA


def declared(ctx: Context, capability: str) -> bool:
    return getattr(ctx.client_capabilities, capability, None) is not None


def require(ctx: Context, *capabilities: str) -> None:
    """-32021 naming the capabilities the client did not declare."""
    missing = [c for c in capabilities if not declared(ctx, c)]
    if missing:
        raise MCPError(
            code=types.MISSING_REQUIRED_CLIENT_CAPABILITY,
            message=f"the client did not declare {', '.join(missing)}",
            data={"requiredCapabilities": {c: {} for c in missing}},
        )


def ask(requests: dict[str, dict[str, Any]], state: str | None = None) -> types.InputRequiredResult:
    """An input_required result asking `requests`, with `state` (sealed by the SDK) when given."""
    return types.InputRequiredResult.model_validate(
        {"inputRequests": requests, **({"requestState": state} if state is not None else {})}
    )


def answered(ctx: Context, *keys: str) -> bool:
    """Whether the retry answers every one of `keys` (and with the result type each request asks for)."""
    responses = ctx.input_responses or {}
    return all(isinstance(responses.get(key), types.Result) for key in keys)


async def asking(
    ctx: Context, requests: dict[str, dict[str, Any]], done: str, state: str | None = None
) -> Asked:
    """The round trip of a tool that asks `requests`: -32021 for an undeclared capability, the question until
    every key is answered (and `state` echoed), then `done`."""
    if not modern(ctx):
        return text(HANDSHAKE_NOTE)
    require(ctx, *dict.fromkeys(NEEDS[str(r["method"])] for r in requests.values()))
    if answered(ctx, *requests) and (state is None or ctx.request_state == state):
        return text(done)
    return ask(requests, state)


async def announce(ctx: Context, kind: str) -> list[types.ContentBlock]:
    """Tell the client that the list of `kind` (tool or prompt) changed: on its listen streams (2026-07-28),
    else as a notification."""
    if modern(ctx):
        await getattr(ctx, f"notify_{kind}s_changed")()
    else:
        await getattr(ctx.session, f"send_{kind}_list_changed")()
    return text(f"{kind.capitalize()} list change announced.")


def register(server: MCPServer) -> None:
    """Add the 2026-07-28 fixtures to `server`."""

    @server.tool(description="Asks the user's name through an input_required result (SEP-2322)")
    async def test_input_required_result_elicitation(ctx: Context) -> Asked:
        name = ((ctx.input_responses or {}).get("user_name") or types.ElicitResult(action="cancel")).content
        greeting = f"Hello, {(name or {}).get('name', 'there')}!" if isinstance(name, dict) else "Hello!"
        return await asking(ctx, {"user_name": elicit("What is your name?", NAME_FORM)}, greeting)

    @server.tool(description="Asks the model a question through an input_required result (SEP-2322)")
    async def test_input_required_result_sampling(ctx: Context) -> Asked:
        question = sample("What is the capital of France?")
        return await asking(ctx, {"capital_question": question}, "The model answered.")

    @server.tool(description="Asks for the client's roots through an input_required result (SEP-2322)")
    async def test_input_required_result_list_roots(ctx: Context) -> Asked:
        return await asking(ctx, {"client_roots": ROOTS}, "Roots received.")

    @server.tool(description="Asks with a requestState it checks on the retry (SEP-2322)")
    async def test_input_required_result_request_state(ctx: Context) -> Asked:
        return await asking(ctx, CONFIRM, "state-ok: the requestState came back intact", "awaiting-confirm")

    @server.tool(description="Asks for elicitation, sampling and roots at once (SEP-2322)")
    async def test_input_required_result_multiple_inputs(ctx: Context) -> Asked:
        requests = {
            "user_name": elicit("What is your name?", NAME_FORM),
            "greeting": sample("Say hello"),
            "client_roots": ROOTS,
        }
        return await asking(ctx, requests, "All inputs received.", "awaiting-all")

    @server.tool(description="Asks twice, with a new requestState each round (SEP-2322)")
    async def test_input_required_result_multi_round(ctx: Context) -> Asked:
        if not modern(ctx):
            return text(HANDSHAKE_NOTE)
        require(ctx, "elicitation")
        if ctx.request_state == "round-2" and answered(ctx, "step2"):
            return text("Both rounds completed.")
        if ctx.request_state == "round-1" and answered(ctx, "step1"):
            return ask({"step2": elicit("Step 2: your city?", CITY_FORM)}, "round-2")
        return ask({"step1": elicit("Step 1: your name?", NAME_FORM)}, "round-1")

    @server.tool(description="Asks with an integrity-protected requestState (SEP-2322)")
    async def test_input_required_result_tampered_state(ctx: Context) -> Asked:
        return await asking(ctx, CONFIRM, "Confirmed.", "signed-state")

    @server.tool(description="Asks only for what the client declared: sampling, else elicitation (SEP-2322)")
    async def test_input_required_result_capabilities(ctx: Context) -> Asked:
        if not modern(ctx):
            return text(HANDSHAKE_NOTE)
        if declared(ctx, "sampling"):
            return await asking(ctx, {"question": sample("Pick a colour")}, "Answered by sampling.")
        if declared(ctx, "elicitation"):
            return await asking(ctx, {"question": elicit("Pick a colour", CONFIRM_FORM)}, "Answered.")
        require(ctx, "sampling")
        return text("unreachable")

    @server.prompt(title="Prompt That Asks For Input")
    async def test_input_required_result_prompt(
        ctx: Context,
    ) -> list[UserMessage] | types.InputRequiredResult:
        """A prompt that asks for context through an input_required result (SEP-2322)"""
        if modern(ctx) and not answered(ctx, "user_context"):
            require(ctx, "elicitation")
            return ask({"user_context": elicit("What context should the prompt use?", CONTEXT_FORM)})
        return [UserMessage(content=types.TextContent(type="text", text="Use the context given."))]

    @server.tool(description="Needs the sampling capability: -32021 for a client that did not declare it")
    async def test_missing_capability(ctx: Context) -> list[types.ContentBlock]:
        require(ctx, "sampling")
        return text("The client declared sampling.")

    @server.tool(description="Asks for input while it runs: an input_required result, never a request")
    async def test_streaming_elicitation(ctx: Context) -> Asked:
        return await asking(ctx, {"answer": elicit("Continue?", CONFIRM_FORM)}, "Continued.")

    @server.tool(description="Logs while it runs (only at a level the request asked for)")
    async def test_logging_tool(ctx: Context) -> list[types.ContentBlock]:
        await ctx.info("test_logging_tool ran")
        return text("Logged.")

    @server.tool(description="Announces a changed tool list")
    async def test_trigger_tool_change(ctx: Context) -> list[types.ContentBlock]:
        return await announce(ctx, "tool")

    @server.tool(description="Announces a changed prompt list")
    async def test_trigger_prompt_change(ctx: Context) -> list[types.ContentBlock]:
        return await announce(ctx, "prompt")

    @server.tool(description="Tests the Mcp-Param-Region header that mirrors its region argument (SEP-2243)")
    def test_custom_headers(region: str) -> str:
        return f"Looked in {region}."

    # tools/list shows the x-mcp-header annotation, which the SDK checks the Mcp-Param-Region header against.
    server._tool_manager.get_tool("test_custom_headers").parameters = CUSTOM_HEADER_SCHEMA  # type: ignore[union-attr]
