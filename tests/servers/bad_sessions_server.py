"""A stdlib-only Streamable HTTP MCP server of the 2025-11-25 era that follows the transport's session rules
except for the one its mode breaks.

Usage: bad_sessions_server.py --port PORT, every mode at once: POST /MODE/mcp, MODE `conforming` or one of
the names in BREAKS. The well-behaved base mints a visible-ASCII Mcp-Session-Id on initialize, answers a
request without one with HTTP 400 and one with an unknown (or deleted) session with 404, ends a session on
DELETE, refuses an unsupported MCP-Protocol-Version (400) and a foreign Host or Origin (403), and answers each
request on an SSE stream whose first event primes it (an event id, a retry interval, empty data) before the
answer. It declares no capabilities: it answers initialize and ping, and -32601 for anything else.
"""

from __future__ import annotations

import itertools
import json
import secrets
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

BREAKS = {
    "invisible-session-id": "mints session ids with a space in them (outside visible ASCII)",
    "alive-after-delete": "accepts DELETE but keeps answering in the deleted session (not 404)",
    "no-session-required": "answers a request without Mcp-Session-Id instead of refusing it with 400",
    "no-priming": "sends event ids on its SSE streams but no priming event before the answer",
}
MODES = ("conforming", *BREAKS)
SUPPORTED = ("2025-03-26", "2025-06-18", "2025-11-25")
LOCAL = ("127.0.0.1", "localhost")
RETRY_MS = 500
EVENT_IDS = itertools.count(1)
SESSIONS: dict[str, set[str]] = {mode: set() for mode in MODES}


def answer(body: dict[str, Any]) -> dict[str, Any]:
    """The JSON-RPC answer to one request."""
    method, ident = body.get("method"), body.get("id")
    if method == "initialize":
        asked = (body.get("params") or {}).get("protocolVersion")
        result = {
            "protocolVersion": asked if asked in SUPPORTED else SUPPORTED[-1],
            "capabilities": {},
            "serverInfo": {"name": "bad-sessions", "version": "1"},
        }
        return {"jsonrpc": "2.0", "id": ident, "result": result}
    if method == "ping":
        return {"jsonrpc": "2.0", "id": ident, "result": {}}
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "Method not found"}}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _status(self, status: int, session: str | None = None) -> None:
        self.send_response(status)
        if session is not None:
            self.send_header("Mcp-Session-Id", session)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _stream(self, mode: str, message: dict[str, Any], session: str | None) -> None:
        """The answer on an SSE stream, after a priming event unless the mode breaks that rule."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        if session is not None:
            self.send_header("Mcp-Session-Id", session)
        self.end_headers()
        if mode != "no-priming":
            self.wfile.write(f"id: {next(EVENT_IDS)}\nretry: {RETRY_MS}\ndata: \n\n".encode())
        self.wfile.write(f"id: {next(EVENT_IDS)}\ndata: {json.dumps(message)}\n\n".encode())
        self.wfile.flush()

    def _mode(self) -> str | None:
        """This request's mode, or None once it has been refused (unknown path, foreign Host or Origin)."""
        mode = self.path.strip("/").split("/")[0]
        if mode not in SESSIONS:
            self._status(404)
            return None
        host = urlsplit(f"//{self.headers.get('Host', '')}").hostname
        origin = self.headers.get("Origin")
        if host not in LOCAL or (origin is not None and urlsplit(origin).hostname not in LOCAL):
            self._status(403)
            return None
        return mode

    def do_POST(self) -> None:
        mode = self._mode()
        if mode is None:
            return
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        if body.get("method") == "initialize":
            session = "toolproof session " if mode == "invisible-session-id" else "toolproof-session-"
            session += secrets.token_hex(8)
            SESSIONS[mode].add(session)
            self._stream(mode, answer(body), session)
            return
        session = self.headers.get("Mcp-Session-Id")
        if session is None and mode != "no-session-required":
            self._status(400)
            return
        if session is not None and session not in SESSIONS[mode]:
            self._status(404)
            return
        if self.headers.get("MCP-Protocol-Version", SUPPORTED[-1]) not in SUPPORTED:
            self._status(400)
            return
        if "id" not in body or "method" not in body:  # a notification, or an answer to the server
            self._status(202)
            return
        self._stream(mode, answer(body), None)

    def do_DELETE(self) -> None:
        mode = self._mode()
        if mode is None:
            return
        session = self.headers.get("Mcp-Session-Id")
        if session is None or session not in SESSIONS[mode]:
            self._status(404)
            return
        if mode != "alive-after-delete":
            SESSIONS[mode].discard(session)
        self._status(200)

    def do_GET(self) -> None:  # no standalone SSE stream
        self._status(405)


if __name__ == "__main__":
    if sys.argv[1:2] != ["--port"]:
        sys.exit("usage: bad_sessions_server.py --port PORT")
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), Handler).serve_forever()
