"""An MCP stdio server whose tools keep or break the protocol's contracts on purpose, in either era (the SDK's
low-level Server, which checks neither what a tool returns nor what the client declared).

  weather        structuredContent that matches its outputSchema
  wrong_type     "temperature" is a string where the schema says number
  missing_field  no "conditions", which the schema requires
  no_structured  declares an outputSchema but returns only text
  failing        declares an outputSchema, fails with isError and no structuredContent (exempt)
  plain          no outputSchema, text only
  ask_model      2026-07-28 only: asks for sampling through input_required (whatever the client declared) and
                 returns the sampled text with the request state it echoed
  ask_forever    2026-07-28 only: answers every round with another input_required result
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server

WEATHER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"temperature": {"type": "number"}, "conditions": {"type": "string"}},
    "required": ["temperature", "conditions"],
}
RESULTS: dict[str, tuple[dict[str, Any] | None, bool]] = {
    "weather": ({"temperature": 21.5, "conditions": "sunny"}, False),
    "wrong_type": ({"temperature": "hot", "conditions": "sunny"}, False),
    "missing_field": ({"temperature": 21.5}, False),
    "no_structured": (None, False),
    "failing": (None, True),
}


def _tool(name: str, schema: dict[str, Any] | None) -> types.Tool:
    return types.Tool(
        name=name,
        description=f"{name} (contract server)",
        input_schema={"type": "object"},
        output_schema=schema,
    )


async def list_tools(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    plain = [_tool(name, None) for name in ("plain", "ask_model", "ask_forever")]
    return types.ListToolsResult(tools=[*(_tool(name, WEATHER_SCHEMA) for name in RESULTS), *plain])


def _text(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


def _ask(state: str) -> types.InputRequiredResult:
    text = types.TextContent(type="text", text="Say something.")
    question = types.SamplingMessage(role="user", content=text)
    request = types.CreateMessageRequest(
        params=types.CreateMessageRequestParams(messages=[question], max_tokens=20)
    )
    return types.InputRequiredResult(input_requests={"say": request}, request_state=state)


async def call_tool(
    ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
) -> types.CallToolResult | types.InputRequiredResult:
    if params.name == "ask_forever":
        return _ask(f"round-{len(params.request_state or '')}")
    if params.name == "ask_model":
        answer = (params.input_responses or {}).get("say")
        if not isinstance(answer, types.CreateMessageResult):
            return _ask("asked-once")
        said = answer.content.text if isinstance(answer.content, types.TextContent) else "?"
        return _text(f"the model said {said!r} (state {params.request_state})")
    structured, failed = RESULTS.get(params.name, (None, False))
    text = "no weather today" if failed else json.dumps(structured) if structured else "plain text"
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=structured, is_error=failed
    )


server = Server("contract-server", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
