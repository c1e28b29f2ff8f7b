"""`scan`: the security rules over what servers tell the model, as one ordered registry (pure).

The rules live by what they read: `text_rules` (one text: injection, concealment, secrets, hidden
characters, escapes, encoded payloads), `shadowing` (every server's texts together), `interfaces` (one
tool's parameters), `pins` (a listing against its pin), `flows` (every server's tools together).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import islice
from typing import Any

from toolproof.probe.scan import flows, interfaces, pins, shadowing, text_rules
from toolproof.probe.scan.findings import MAX_PER_TEXT, Rule, ScanFinding, Surface
from toolproof.probe.scan.listing import Listing, surfaces

__all__ = ["RESPONSE_RULES", "RULES", "TEXT_RULES", "Listing", "Rule", "ScanFinding", "scan_listings"]

TEXT_RULES: tuple[Callable[[Surface], Iterator[ScanFinding]], ...] = (
    text_rules.injection,
    text_rules.concealment,
    text_rules.secret_reference,
    text_rules.hidden_unicode,
    text_rules.terminal_escape,
    text_rules.encoded_payload,
)
"""The rules over each text a server shows the model, in report order."""

RESPONSE_RULES: tuple[Callable[[Surface], Iterator[ScanFinding]], ...] = (
    text_rules.injection,
    text_rules.concealment,
    text_rules.hidden_unicode,
    text_rules.terminal_escape,
)
"""The rules over the text a benign call answered (a response may name files and carry data)."""

RULES: tuple[Rule, ...] = (
    text_rules.INJECTION,
    text_rules.CONCEALMENT,
    text_rules.SECRETS,
    text_rules.HIDDEN,
    text_rules.ESCAPES,
    text_rules.ENCODED,
    shadowing.SHADOWING,
    interfaces.SHELL,
    interfaces.PATH,
    interfaces.URL,
    pins.ADDED,
    pins.REMOVED,
    pins.RENAMED,
    pins.DESCRIPTION,
    pins.ANNOTATIONS,
    pins.SCHEMA,
    pins.INSTRUCTIONS,
    pins.OTHER,
    flows.TOXIC_FLOW,
)
"""Every rule a finding can name, by id order: the README and the SARIF driver list them."""


def scan_listings(
    listings: Sequence[Listing], pinned: Mapping[str, Mapping[str, Any]] | None = None
) -> list[ScanFinding]:
    """Every finding of the run: per server its texts, parameters, responses, its changes against
    `pinned` (by server name) and within the session; then shadowing and toxic flows across servers."""
    findings: list[ScanFinding] = []
    for listing in listings:
        findings += [found for surface in surfaces(listing) for found in _text_findings(surface, TEXT_RULES)]
        for tool in listing.tools:
            findings += interfaces.risky_parameters(listing.server, tool)
        for name, text in listing.responses.items():
            surface = Surface(listing.server, name, "response", text)
            findings += _text_findings(surface, RESPONSE_RULES)
        if pinned is not None and listing.server in pinned:
            findings += pins.compare(listing.server, pinned[listing.server], listing)
        if listing.relisted is not None:
            first = pins.pin_of(listing)
            again = Listing(listing.server, listing.relisted, listing.instructions)
            known = {pins.digest(tool) for tool in listing.tools}
            changed = Listing(
                listing.server, [tool for tool in listing.relisted if pins.digest(tool) not in known]
            )
            findings += [
                found for surface in surfaces(changed) for rule in TEXT_RULES for found in rule(surface)
            ]
            findings += pins.compare(
                listing.server, first, again, when=" after notifications/tools/list_changed"
            )
    findings += shadowing.shadowing(listings)
    findings += flows.toxic_flows(listings)
    return findings


def _text_findings(
    surface: Surface, rules: Sequence[Callable[[Surface], Iterator[ScanFinding]]]
) -> list[ScanFinding]:
    """What `rules` find in one text, at most `MAX_PER_TEXT` places per rule."""
    return [found for rule in rules for found in islice(rule(surface), MAX_PER_TEXT)]
