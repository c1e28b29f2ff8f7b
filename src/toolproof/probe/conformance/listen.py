"""SEP-2575 subscriptions: a server that declares list changes or resource subscriptions serves
`subscriptions/listen`, and the first message of a subscription acknowledges it, carrying the subscription's
id (the JSON-RPC id of the `subscriptions/listen` request). Over HTTP the stream is the subscription's own
(`modern_http.py` opens it); over stdio every subscription shares the one channel, so the first message of
this one is the first that carries a subscription id, or the answer to the request."""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types as types

from toolproof.mcp.stdio import StdioChannel
from toolproof.probe.conformance.checks import (
    ProbedServer,
    RequirementResult,
    error_code,
    failed,
    judged,
    passed,
    skipped,
)
from toolproof.probe.conformance.stateless import STATELESS, cited
from toolproof.probe.conformance.wire import Message, NoAnswer, envelope

CHECK = "subscriptions/listen is acknowledged first"
SECTION = "basic/patterns/subscriptions#acknowledgment"
OFFICIAL = (f"{STATELESS}server-sends-subscription-ack",)
LISTEN_WAIT_S = 3.0
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
FILTERS = {"tools": "toolsListChanged", "prompts": "promptsListChanged", "resources": "resourcesListChanged"}
STDIO_SUBSCRIPTION = "toolproof-listen"
FOLLOW_S = 0.3  # how long a subscription's stream is read after its acknowledgment
TAGGED = "subscription notifications carry its id"
FILTERED = "a subscription gets only the notifications it asked for"
CHANGED = "list changes are sent on a subscription"
SUBSCRIPTIONS = "basic/patterns/subscriptions"
LIST_CHANGED = {f"notifications/{kind}/list_changed": flag for kind, flag in FILTERS.items()}


def notification_filter(capabilities: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The `notifications` filter to listen with (the list changes the server declares, else tools), and
    whether the server declares anything a subscription delivers."""
    wanted = {
        flag: True for kind, flag in FILTERS.items() if (capabilities.get(kind) or {}).get("listChanged")
    }
    offered = bool(wanted) or bool((capabilities.get("resources") or {}).get("subscribe"))
    return wanted or {"toolsListChanged": True}, offered


def _subscription(message: Message) -> Any:
    return ((message.get("params") or {}).get("_meta") or {}).get(SUBSCRIPTION_ID)


def acknowledgement(first: Message | None, offered: bool, ident: str | int) -> list[RequirementResult]:
    """The verdict on the first message of the subscription opened by request `ident` (None: nothing came
    within LISTEN_WAIT_S)."""
    if first is not None and error_code(first) == types.METHOD_NOT_FOUND:
        if not offered:
            return cited(
                [skipped(CHECK, SECTION, "the server declares no list changes or subscriptions")], *OFFICIAL
            )
        verdict = failed(
            CHECK, SECTION, "the server declares list changes, yet subscriptions/listen is -32601"
        )
    elif first is None:
        verdict = failed(CHECK, SECTION, f"nothing came for the subscription within {LISTEN_WAIT_S:g} s")
    elif first.get("method") != ACKNOWLEDGED:
        verdict = failed(
            CHECK, SECTION, f"the first message is {json.dumps(first)[:160]}, not {ACKNOWLEDGED}"
        )
    elif _subscription(first) is None:
        verdict = failed(CHECK, SECTION, f"the acknowledgment carries no {SUBSCRIPTION_ID} in _meta")
    elif _subscription(first) != ident:
        verdict = failed(
            CHECK,
            SECTION,
            f"the acknowledgment says subscription {_subscription(first)!r}, not the request's {ident!r}",
        )
    else:
        verdict = passed(CHECK, SECTION)
    return cited([verdict], *OFFICIAL)


async def listen_stdio(probe: ProbedServer) -> list[RequirementResult]:
    """Over stdio: open a subscription, take its first message, then cancel it (over HTTP `modern_http.py`
    checks the same on the subscription's own stream)."""
    if not isinstance(probe.link.channel, StdioChannel):
        return []
    wanted, offered = notification_filter(probe.capabilities)
    ident = STDIO_SUBSCRIPTION

    def first_of_it(message: Message) -> bool:
        if "method" not in message:
            return bool(message.get("id") == ident)
        return "id" not in message and _subscription(message) is not None

    params = {"notifications": wanted, "_meta": envelope(probe.link.era)}
    await probe.link.send({"jsonrpc": "2.0", "id": ident, "method": "subscriptions/listen", "params": params})
    try:
        first = await probe.link.until(first_of_it, LISTEN_WAIT_S)
    except (anyio.EndOfStream, anyio.ClosedResourceError) as closed:
        raise NoAnswer("subscriptions/listen: the connection closed before the acknowledgment") from closed
    if first is None or "method" in first:  # the subscription is open: end it
        await probe.link.abandon(ident, "toolproof conformance: acknowledgment checked")
    return acknowledgement(first, offered, ident)


def following(after: list[Message], wanted: dict[str, Any], ident: str | int) -> list[RequirementResult]:
    """The verdicts on the notifications that followed a subscription's acknowledgment on its own stream
    (`wanted` is the filter it was opened with): each carries the subscription's id, none is of a kind the
    filter left out, and a list change asked for is sent. The probe cannot make a server change its lists, so
    each is judged only on what the server sent of its own accord."""
    notes = [m for m in after if str(m.get("method", "")).startswith("notifications/")]
    changes = [str(m["method"]) for m in notes if m["method"] in LIST_CHANGED]
    asked = sorted({method for method in changes if wanted.get(LIST_CHANGED[method])})
    within = f"within {FOLLOW_S:g} s of the acknowledgment (the probe cannot change the server's lists)"
    if notes:
        untagged = [str(m["method"]) for m in notes if _subscription(m) != ident]
        unasked = [method for method in changes if not wanted.get(LIST_CHANGED[method])]
        seen = f"{len(notes)} notification(s)"
        tagged = judged(
            TAGGED, SUBSCRIPTIONS, [f"{m} without {SUBSCRIPTION_ID} {ident!r}" for m in untagged], [seen], ""
        )
        filtered = judged(
            FILTERED,
            SUBSCRIPTIONS,
            [f"{m}, not asked for by {json.dumps(wanted)}" for m in unasked],
            [seen],
            "",
        )
    else:
        tagged = skipped(TAGGED, SUBSCRIPTIONS, f"no notification came {within}")
        filtered = skipped(FILTERED, SUBSCRIPTIONS, f"no notification came {within}")
    changed = (
        passed(CHANGED, SUBSCRIPTIONS, ", ".join(asked))
        if asked
        else skipped(CHANGED, SUBSCRIPTIONS, f"no list change asked for came {within}")
    )
    return [
        *cited([tagged], f"{STATELESS}server-tags-subscription-id"),
        *cited([filtered], f"{STATELESS}server-honors-notification-filter"),
        *cited(
            [changed],
            f"{STATELESS}server-sends-tools-list-changed-on-subscription",
            f"{STATELESS}server-sends-prompts-list-changed-on-subscription",
        ),
    ]
