"""A small agent behind HTTP, for the HTTP-target tests: it reads the user's message, really calls the notes
MCP server (examples/servers/notes_server.py over stdio, through toolproof.mcp) and answers with its reply,
OpenAI-style token usage and an inline trace of the tool calls it made.

What it understands: "remember X" (add_note), "what did I ask you to remember?" (search_notes for what this
session asked to remember), anything else (a plain answer, no tool). Routes (POST):

  /chat     the message from `input` or `message`, the session from `session`; answers
            {"data": {"reply", "session", "turn", "request_id", "echo"}, "tool_calls": [...], "usage": {...}}
  /spans    the same answer, the trace as canonical spans under `trace` (a node "Notes Agent" with the calls)
  /fail     HTTP 500 with an error body
  /slow     answers after SLOW_S seconds
  /leaky    like /chat, and echoes the Authorization header it got (an agent that leaks its credential)

When AGENT_TOKEN is set, a request without `Authorization: Bearer $AGENT_TOKEN` gets HTTP 401.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from anyio.from_thread import BlockingPortal, start_blocking_portal

from toolproof.mcp.client import Session
from toolproof.mcp.session import open_session
from toolproof.mcp.spec import ConnectSpec
from toolproof.model.server_config import Transport

NOTES = Path(__file__).resolve().parents[3] / "examples" / "servers" / "notes_server.py"
SLOW_S = 5.0


class Agent:
    """The agent's memory (what each session asked to remember) and its one MCP session."""

    def __init__(self, portal: BlockingPortal, session: Session) -> None:
        self.portal = portal
        self.session = session
        self.remembered: dict[str, list[str]] = {}
        self.turns: dict[str, int] = {}
        self.lock = threading.Lock()

    def tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Call a notes tool; the call as the inline trace records it."""
        result = self.portal.call(self.session.call_tool, name, arguments)
        text = "\n".join(block.get("text", "") for block in result.get("content", []))
        output = result.get("structuredContent", text)
        return {"name": name, "arguments": arguments, "output": output, "status": "success"}

    def answer(self, message: str, session: str) -> tuple[str, list[dict[str, Any]], int]:
        with self.lock:
            self.turns[session] = self.turns.get(session, 0) + 1
            turn = self.turns[session]
        calls: list[dict[str, Any]] = []
        if message.lower().startswith("remember "):
            title = message[len("remember ") :].strip()
            calls.append(self.tool("add_note", {"title": title, "body": f"asked in session {session}"}))
            with self.lock:
                self.remembered.setdefault(session, []).append(title)
            return f"Noted: {title} (note {calls[0]['output']['id']}).", calls, turn
        if "what did i ask you to remember" in message.lower():
            titles = self.remembered.get(session, [])
            if not titles:
                return "You have not asked me to remember anything yet.", calls, turn
            calls.append(self.tool("search_notes", {"query": titles[-1]}))
            return f"You asked me to remember {titles[-1]}.", calls, turn
        return "I can remember things for you.", calls, turn


def handler(agent: Agent) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def send(self, status: int, payload: Any) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            token = os.environ.get("AGENT_TOKEN")
            if token and self.headers.get("authorization") != f"Bearer {token}":
                self.send(401, {"error": "unauthorized"})
                return
            if self.path == "/fail":
                self.send(500, {"error": "the agent crashed", "request_id": self.headers.get("x-request-id")})
                return
            if self.path == "/slow":
                time.sleep(SLOW_S)
            message = str(body.get("input", body.get("message", ""))) if isinstance(body, dict) else ""
            session = str(body.get("session", "default")) if isinstance(body, dict) else "default"
            reply, calls, turn = agent.answer(message, session)
            words = len(message.split()) + len(reply.split())
            data = {
                "reply": reply,
                "session": session,
                "turn": turn,
                "request_id": self.headers.get("x-request-id"),
                "echo": body,
            }
            if self.path == "/leaky":
                data["authorization"] = self.headers.get("authorization")
            usage = {"prompt_tokens": 20 + words, "completion_tokens": len(reply.split())}
            usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
            if self.path == "/spans":
                self.send(200, {"data": data, "trace": spans(calls), "usage": usage})
            else:
                self.send(200, {"data": data, "tool_calls": calls, "usage": usage})

    return Handler


def spans(calls: list[dict[str, Any]]) -> dict[str, Any]:
    """A canonical trace: the run, its agent node, and one tool span per call under the node."""
    found: list[dict[str, Any]] = [
        {"span_id": "root", "name": "run", "attributes": {"http.response.status_code": 200}},
        {"span_id": "agent", "parent_span_id": "root", "name": "Notes Agent"},
    ]
    for index, call in enumerate(calls):
        attributes = {
            "gen_ai.tool.name": call["name"],
            "gen_ai.tool.call.arguments": json.dumps(call["arguments"]),
            "gen_ai.tool.call.result": json.dumps(call["output"]),
        }
        found.append(
            {
                "span_id": f"tool-{index}",
                "parent_span_id": "agent",
                "name": call["name"],
                "attributes": attributes,
            }
        )
    return {"spans": found}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    options = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    spec = ConnectSpec(
        transport=Transport.STDIO, command=sys.executable, args=(str(NOTES),), env=dict(os.environ)
    )
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(open_session(spec)) as session:
        server = ThreadingHTTPServer(("127.0.0.1", options.port), handler(Agent(portal, session)))
        server.daemon_threads = True
        try:
            server.serve_forever()
        finally:
            server.server_close()


if __name__ == "__main__":
    main()
