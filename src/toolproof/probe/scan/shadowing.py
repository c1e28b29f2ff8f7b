"""Shadowing: a description that names another server's tools or the server itself, or that tells the model
how to use every other tool, across all the servers of one run (pure)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from toolproof.probe.lint_rules.findings import Severity
from toolproof.probe.scan.findings import Rule, ScanFinding, found
from toolproof.probe.scan.listing import Listing, surfaces
from toolproof.probe.scan.text_rules import context
from toolproof.probe.tools import tool_name

SHADOWING = Rule(
    "S107",
    "shadowing",
    Severity.ERROR,
    "A description that names a tool of another server of the run (or that server), or that tells the "
    "model how to use other tools ('when you call any other tool ...'): one server steering the use of "
    "another's tools.",
)
_OTHER_TOOLS = re.compile(
    r"\b(?:when|whenever|before|after|each\s+time)\s+(?:you\s+)?(?:use|using|call|calling|invoke|invoking)\s+"
    r"(?:any|all|every|another|other|the\s+other)\s+(?:other\s+)?tools?"
    r"|\b(?:change|modify|override|replace)s?\s+(?:the\s+)?behaviou?r\s+of\s+(?:other|all|any|the\s+other)\s+tools?"
    r"|\b(?:all|any|every)\s+other\s+tools?\s+(?:must|should)\b",
    re.IGNORECASE,
)


def distinctive(name: str) -> bool:
    """A name unlikely to appear by chance in prose: long enough and made of several words."""
    return len(name) >= 5 and (
        any(mark in name for mark in "_-/.") or re.search(r"[a-z][A-Z]", name) is not None
    )


def shadowing(listings: Sequence[Listing]) -> Iterator[ScanFinding]:
    """Each description naming another server's tool or the other server, and each 'other tools' phrase."""
    names = {
        listing.server: [name for name in (tool_name(tool) for tool in listing.tools) if distinctive(name)]
        for listing in listings
    }
    for listing in listings:
        owners: dict[str, tuple[str, str]] = {}
        for other in listings:
            if other.server != listing.server:
                for name in (*names[other.server], *([other.server] if distinctive(other.server) else [])):
                    owners.setdefault(name.lower(), (other.server, name))
        pattern = _words(sorted(owners, key=len, reverse=True))
        for surface in surfaces(listing):
            if pattern is not None:
                for match in pattern.finditer(surface.text):
                    server, name = owners[match.group().lower()]
                    what = "server" if name == server else f"tool of server {server!r}"
                    message = f"names {name!r}, a {what}"
                    yield found(SHADOWING, surface, message, context(surface.text, match))
            for match in _OTHER_TOOLS.finditer(surface.text):
                message = "tells the model how to use other tools"
                yield found(SHADOWING, surface, message, context(surface.text, match))


def _words(names: list[str]) -> re.Pattern[str] | None:
    """One pattern for every name as a whole word (longest first), None for none."""
    if not names:
        return None
    return re.compile(rf"(?<![\w-])(?:{'|'.join(map(re.escape, names))})(?![\w-])", re.IGNORECASE)
