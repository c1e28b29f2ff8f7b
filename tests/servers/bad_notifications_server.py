"""stateless_server.py's conforming 2026-07-28 server over stdio, with the notifications of that era: it
declares tool-list changes and logging, serves `subscriptions/listen`, and logs during a tool call that asks
for log messages, following the rules except the one its MODE breaks.

Usage: bad_notifications_server.py [MODE], MODE `conforming` or one of the names in BREAKS. A subscription is
acknowledged (`notifications/subscriptions/acknowledged`, tagged with the request's id as its subscription id)
and stays open until the client cancels it; no tool ever changes. A tools/call whose `_meta` carries
`io.modelcontextprotocol/logLevel` gets one info message before its answer; other requests get none.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from stateless_server import Server  # the sibling module (this file runs as a script)

BREAKS = {
    "notification-first": "sends a tools/list_changed on the subscription before acknowledging it",
    "foreign-id": "tags the acknowledgment with a subscription id that is not the request's",
    "unasked-log": "sends a log message with its tools/list answer, which asked for none",
    "late-log": "sends a tool call's log message after its answer",
    "listen-exit": "exits when asked to listen",
}
LOG_LEVEL = "io.modelcontextprotocol/logLevel"
LOG = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "working"}}
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"


class Listening(Server):
    """The conforming stateless server, declaring tools.listChanged and logging."""

    def do_server_discover(
        self, params: dict[str, Any], declared: dict[str, Any]
    ) -> tuple[int, dict[str, Any]]:
        status, answer = super().do_server_discover(params, declared)
        answer["result"]["capabilities"] |= {"tools": {"listChanged": True}, "logging": {}}
        return status, answer


def say(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def tagged(method: str, subscription: Any, **params: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": method,
        "params": {**params, "_meta": {SUBSCRIPTION_ID: subscription}},
    }


def listen(mode: str, body: dict[str, Any]) -> None:
    if mode == "listen-exit":
        sys.exit(3)
    ident = body["id"]
    if mode == "notification-first":
        say(tagged("notifications/tools/list_changed", ident))
    wanted = (body.get("params") or {}).get("notifications") or {}
    subscription = f"{ident}-other" if mode == "foreign-id" else ident
    say(tagged("notifications/subscriptions/acknowledged", subscription, notifications=wanted))


def main(mode: str) -> None:
    assert mode == "conforming" or mode in BREAKS, f"unknown mode {mode}"
    server = Listening("conforming")
    for line in sys.stdin:
        body = json.loads(line)
        if body.get("method") == "subscriptions/listen" and "id" in body:
            listen(mode, body)
        elif "id" in body and "method" in body:
            asked = LOG_LEVEL in ((body.get("params") or {}).get("_meta") or {})
            logs = (asked and body["method"] == "tools/call") or (
                mode == "unasked-log" and body["method"] == "tools/list"
            )
            if logs and mode != "late-log":
                say(LOG)
            say(server.answer(body, None)[1])
            if logs and mode == "late-log":
                say(LOG)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "conforming")
