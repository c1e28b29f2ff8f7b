"""travel: a small MCP server that serves both protocol eras, written with the official SDK's MCPServer.

A client that sends `initialize` gets the 2025-11-25 handshake era; one that sends `server/discover` (or
stamps each request with 2026-07-28) gets the 2026-07-28 era. The tools declare output schemas (their results
carry `structuredContent`) and ask the client for things through resolvers, which the SDK sends as
server-to-client requests in the handshake era and as `input_required` results in the 2026 era:

  forecast(city)       structured weather; read-only; over HTTP in the 2026 era the city also travels in the
                       Mcp-Param-City header (`x-mcp-header`), which the server checks against the arguments
  suggest_trip(city)   asks the client's model for a suggestion (sampling)
  book_trip(city)      asks the user to confirm (elicitation); declining or cancelling is a tool error
  trip_folders()       lists the client's roots (roots)

Run it over stdio (the default), or `--transport streamable-http --port 8000`.
"""

from __future__ import annotations

import argparse
import warnings
from typing import Annotated

import mcp_types as types
from mcp.server import MCPServer
from mcp.server.mcpserver import Elicit, ListRoots, Resolve, Sample
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPDeprecationWarning
from pydantic import BaseModel, Field

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)  # sampling and roots, on purpose

FORECASTS = {
    "Lisbon": (24.5, "sunny"),
    "Oslo": (7.0, "rain"),
    "Kyoto": (18.0, "cloudy"),
}

server = MCPServer("travel", version="1.0.0", instructions="Plans short trips.", log_level="WARNING")


class Forecast(BaseModel):
    """Tomorrow's weather in one city."""

    city: str
    temperature_c: float = Field(description="Degrees Celsius")
    conditions: str
    tags: list[str] = Field(default_factory=list)


class Suggestion(BaseModel):
    city: str
    suggestion: str
    model: str


class Confirm(BaseModel):
    """What book_trip asks before booking."""

    confirm: bool = Field(description="Book the trip?")
    traveller: str = Field(default="", description="Name on the booking")


class Booking(BaseModel):
    city: str
    traveller: str
    reference: str


class Folders(BaseModel):
    folders: list[str]


def _forecast(city: str) -> Forecast:
    if city not in FORECASTS:
        raise ToolError(f"no forecast for {city!r}; try one of {', '.join(FORECASTS)}")
    temperature, conditions = FORECASTS[city]
    tags = [conditions, "tomorrow"]
    return Forecast(city=city, temperature_c=temperature, conditions=conditions, tags=tags)


@server.tool(annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False))
def forecast(city: Annotated[str, Field(json_schema_extra={"x-mcp-header": "City"})]) -> Forecast:
    """Tomorrow's forecast for Lisbon, Oslo or Kyoto; another city is a tool error."""
    return _forecast(city)


def ask_model(city: str) -> Sample:
    prompt = types.TextContent(type="text", text=f"Suggest one thing to do in {city}, in one sentence.")
    return Sample([types.SamplingMessage(role="user", content=prompt)], max_tokens=100)


@server.tool(annotations=types.ToolAnnotations(read_only_hint=True))
def suggest_trip(
    city: str, reply: Annotated[types.CreateMessageResult, Resolve(ask_model)]
) -> Suggestion:
    """Ask the client's model (sampling) what to do in a city."""
    text = reply.content.text if isinstance(reply.content, types.TextContent) else str(reply.content)
    return Suggestion(city=city, suggestion=text, model=reply.model)


def ask_user(city: str) -> Elicit[Confirm]:
    return Elicit(f"Book a trip to {city}?", Confirm)


@server.tool(annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=False))
def book_trip(city: str, answer: Annotated[Confirm, Resolve(ask_user)]) -> Booking:
    """Book a trip after the user confirms (elicitation)."""
    if not answer.confirm:
        raise ToolError(f"not confirmed: no trip to {city} booked")
    traveller = answer.traveller or "anonymous"
    return Booking(city=city, traveller=traveller, reference=f"{city[:3].upper()}-{len(traveller):03d}")


def ask_roots() -> ListRoots:
    return ListRoots()


@server.tool(annotations=types.ToolAnnotations(read_only_hint=True))
def trip_folders(roots: Annotated[types.ListRootsResult, Resolve(ask_roots)]) -> Folders:
    """The client's roots (roots/list), where trip documents may be kept."""
    return Folders(folders=[str(root.uri) for root in roots.roots])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transport", choices=["stdio", "streamable-http"], default="stdio")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    options = parser.parse_args()
    if options.transport == "stdio":
        server.run()
    else:
        server.run(options.transport, host=options.host, port=options.port)


if __name__ == "__main__":
    main()
