#!/usr/bin/env python3
"""An MCP stdio server that misbehaves on purpose (standard library only), for robustness tests.

The misbehaviour is the first argument, or else the MISBEHAVE environment variable:

  garbage          non-JSON lines on stdout before initialize and during a call; answers correctly
  silent_init      never answers initialize
  hang             hangs in every tools/call
  exit_mid_call    writes to stderr and exits with code 3 during a tools/call
  exit_leaving_child  as exit_mid_call, after starting a child (sleep 300) that keeps its stdout open
  exit_at_start    writes to stderr and exits with code 2 before reading anything
  huge             answers tools/call with HUGE_BYTES (default 20 MiB) of text
  deep_nesting     answers tools/call with 10 000-deep nested JSON that no parser accepts
  ignore_sigterm   ignores SIGTERM and does not exit when stdin closes
  group_child      starts a child in its own process group (sleep 300)
  setsid_child     starts a child in a new session (sleep 300) that outlives it
  daemon           double-forks a daemon (sleep 300) that leaves its session
  stderr_flood     writes STDERR_BYTES (default 4 MiB) to stderr before initialize and during a call
  bad_result       answers tools/call with content that is not valid MCP
  odd_notifications  sends a vendor notification and an invalid log notification during a call
  silent_listing   never answers tools/list; answers tools/call (with structuredContent if STRUCTURED is set)
  wrong_id         answers tools/call with an id 1000 higher than the request's
  batch            answers tools/call inside a JSON-RPC batch array
  init_notifications  sends tools/list_changed and a log message as soon as it is initialized
  notification_flood  sends NOTIFICATIONS (default 10 000) log notifications before answering tools/call
  on_request       declares its tool t readOnlyHint: true (and a tool w readOnlyHint: false), answers "ok",
                   then does what the call's argument `then` says: "exit" (exit with code 3), "hang"
                   (sleep), "garbage" (a non-JSON line on stdout); its answer names its pid
  half_modern      answers server/discover as a 2026-07-28 server, then everything else as a server of the
                   2025-11-25 handshake era (no resultType, ttlMs or cacheScope)
  not_mcp_http     an HTTP server (--port N) that answers every POST with 200 and something other than
                   JSON-RPC, by path: /json a JSON object, /garbage invalid JSON, /html an HTML page

PID_FILE, if set, receives the pids of the children it starts, one per line; SERVER_PID_FILE its own pid;
METHODS_FILE the method of every request it receives, one per line.
"""

from __future__ import annotations

import http.server
import json
import os
import signal
import subprocess
import sys
import time
from typing import Any

MODE = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("MISBEHAVE", "")
PID_FILE = os.environ.get("PID_FILE")
SLEEPER = ["sleep", "300"]
QUIET: dict[str, Any] = {name: subprocess.DEVNULL for name in ("stdin", "stdout", "stderr")}


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def notify(method: str, params: dict[str, Any]) -> None:
    send({"jsonrpc": "2.0", "method": method, "params": params})


def note_pid(pid: int) -> None:
    if PID_FILE:
        with open(PID_FILE, "a") as handle:
            handle.write(f"{pid}\n")


def flood_stderr() -> None:
    size = int(os.environ.get("STDERR_BYTES", str(4 << 20)))
    line = "log line that nobody asked for " * 3 + "\n"
    sys.stderr.write(line * (size // len(line)))
    sys.stderr.flush()


def daemonize() -> None:
    """Classic double fork: the grandchild runs `sleep` in a session of its own, re-parented away."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            note_pid(os.getpid())
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            os.execvp(SLEEPER[0], SLEEPER)
        os._exit(0)
    os.wait()


def start() -> None:
    if "SERVER_PID_FILE" in os.environ:
        with open(os.environ["SERVER_PID_FILE"], "w") as handle:
            handle.write(f"{os.getpid()}\n")
    if MODE == "exit_at_start":
        sys.stderr.write("fatal: configuration file /etc/notes.toml not found\n")
        sys.exit(2)
    if MODE == "ignore_sigterm":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if MODE in ("group_child", "setsid_child"):
        child = subprocess.Popen(SLEEPER, start_new_session=MODE == "setsid_child", **QUIET)
        note_pid(child.pid)
    if MODE == "daemon":
        daemonize()
    if MODE == "garbage":
        sys.stdout.write("Starting notes server v1.0...\nnot json {{{\n")
        sys.stdout.flush()
    if MODE == "stderr_flood":
        flood_stderr()


def call_tool(request_id: Any) -> None:
    if MODE == "garbage":
        sys.stdout.write("DEBUG handling tools/call\n")
        sys.stdout.flush()
    elif MODE == "hang":
        time.sleep(3600)
    elif MODE in ("exit_mid_call", "exit_leaving_child"):
        if MODE == "exit_leaving_child":
            note_pid(subprocess.Popen(SLEEPER, stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL).pid)
        sys.stderr.write("panic: database is locked\n")
        sys.stderr.flush()
        os._exit(3)
    elif MODE == "stderr_flood":
        flood_stderr()
    elif MODE == "huge":
        text = "x" * int(os.environ.get("HUGE_BYTES", str(20 << 20)))
        send({"jsonrpc": "2.0", "id": request_id, "result": {"content": [{"type": "text", "text": text}]}})
        return
    elif MODE == "deep_nesting":
        depth = 10_000
        nested = '{"a":' * depth + "1" + "}" * depth
        # Members in the order the TypeScript SDK writes them: the id comes last.
        line = '{"result":{"content":[],"structuredContent":%s},"jsonrpc":"2.0","id":%s}\n'
        sys.stdout.write(line % (nested, json.dumps(request_id)))
        sys.stdout.flush()
        return
    elif MODE == "bad_result":
        send({"jsonrpc": "2.0", "id": request_id, "result": {"content": [{"type": "bogus"}]}})
        return
    elif MODE == "silent_listing" and os.environ.get("STRUCTURED"):
        result = {"content": [{"type": "text", "text": "ok"}], "structuredContent": {"ok": True}}
        send({"jsonrpc": "2.0", "id": request_id, "result": result})
        return
    elif MODE == "wrong_id":
        reply = {"content": [{"type": "text", "text": "ok"}]}
        send({"jsonrpc": "2.0", "id": request_id + 1000, "result": reply})
        return
    elif MODE == "batch":
        reply = {"content": [{"type": "text", "text": "ok"}]}
        sys.stdout.write(json.dumps([{"jsonrpc": "2.0", "id": request_id, "result": reply}]) + "\n")
        sys.stdout.flush()
        return
    elif MODE == "notification_flood":
        note = (
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/message",
                    "params": {"level": "info", "data": "tick"},
                }
            )
            + "\n"
        )
        sys.stdout.write(note * int(os.environ.get("NOTIFICATIONS", "10000")))
    elif MODE == "odd_notifications":
        notify("notifications/x-vendor/custom", {"answer": 42})
        notify("notifications/message", {"level": "NOTALEVEL", "data": 1})
        notify("notifications/message", {"level": "info", "data": "ok"})
    send({"jsonrpc": "2.0", "id": request_id, "result": {"content": [{"type": "text", "text": "ok"}]}})


def then_act(request_id: Any, arguments: dict[str, Any]) -> None:
    then = arguments.get("then")
    if then == "hang":
        time.sleep(3600)
    reply = {"content": [{"type": "text", "text": f"ok from {os.getpid()}"}]}
    send({"jsonrpc": "2.0", "id": request_id, "result": reply})
    if then == "exit":
        os._exit(3)
    if then == "garbage":
        sys.stdout.write("DEBUG not json\n")
        sys.stdout.flush()


def serve() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        request_id, method = message.get("id"), message.get("method")
        if method == "notifications/initialized" and MODE == "init_notifications":
            notify("notifications/tools/list_changed", {})
            notify("notifications/message", {"level": "info", "data": "ready"})
        if request_id is None or method is None:
            continue
        if "METHODS_FILE" in os.environ:
            with open(os.environ["METHODS_FILE"], "a") as handle:
                handle.write(f"{method}\n")
        if method == "server/discover" and MODE == "half_modern":
            result = {
                "resultType": "complete",
                "ttlMs": 0,
                "cacheScope": "private",
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "misbehaving-half_modern", "version": "0"},
            }
            send({"jsonrpc": "2.0", "id": request_id, "result": result})
        elif method == "initialize":
            if MODE == "silent_init":
                continue
            result = {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}, "logging": {}},
                "serverInfo": {"name": f"misbehaving-{MODE}", "version": "0"},
            }
            send({"jsonrpc": "2.0", "id": request_id, "result": result})
        elif method == "tools/list":
            if MODE == "silent_listing":
                continue
            tools: list[dict[str, Any]] = [{"name": "t", "inputSchema": {"type": "object"}}]
            if MODE == "on_request":
                tools[0]["annotations"] = {"readOnlyHint": True}
                writing = {"readOnlyHint": False}
                tools.append({"name": "w", "inputSchema": {"type": "object"}, "annotations": writing})
            send({"jsonrpc": "2.0", "id": request_id, "result": {"tools": tools}})
        elif method == "tools/call" and MODE == "on_request":
            then_act(request_id, (message.get("params") or {}).get("arguments") or {})
        elif method == "tools/call":
            call_tool(request_id)
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": request_id, "result": {}})
        else:
            error = {"code": -32601, "message": "Method not found"}
            send({"jsonrpc": "2.0", "id": request_id, "error": error})


NOT_MCP = {
    "/json": ("application/json", b'{"hello": "not mcp"}'),
    "/garbage": ("application/json", b"Internal thing went wrong"),
    "/html": ("text/html", b"<html><body>Welcome</body></html>"),
}


class NotMcp(http.server.BaseHTTPRequestHandler):
    """Answers every POST with 200 and the body its path names in NOT_MCP."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        content_type, body = NOT_MCP.get(self.path, NOT_MCP["/json"])
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


if __name__ == "__main__":
    if MODE == "not_mcp_http":
        port = int(sys.argv[sys.argv.index("--port") + 1])
        http.server.HTTPServer(("127.0.0.1", port), NotMcp).serve_forever()
    start()
    serve()
    if MODE == "ignore_sigterm":
        time.sleep(3600)
