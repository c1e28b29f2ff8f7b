"""Toxic flows: label each tool, from its annotations, name and description, as reading untrusted content,
reading private data, or acting outside; the run's servers together holding all three make the "lethal
trifecta": content an attacker controls can steer the model to send private data out (pure)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from enum import StrEnum

from toolproof.probe.lint_rules.findings import Severity, description_of
from toolproof.probe.scan.findings import ALL_SERVERS, Rule, ScanFinding
from toolproof.probe.scan.interfaces import URL, risky_kinds
from toolproof.probe.scan.listing import Listing
from toolproof.probe.tools import Tool, tool_name

TOXIC_FLOW = Rule(
    "S501",
    "toxic-flow",
    Severity.ERROR,
    "Across the servers of the run, tools that read untrusted content (web, email, issues, open-world "
    "tools), tools that read private data (files, databases, mail, notes, secrets) and tools that act "
    "outside (send, post, upload, write, delete): together an injected instruction can exfiltrate data.",
)


class Label(StrEnum):
    UNTRUSTED = "reads untrusted content"
    PRIVATE = "reads private data"
    OUTSIDE = "acts outside"


_UNTRUSTED = re.compile(
    r"\b(?:fetch\w*|brows\w+|scrap\w+|crawl\w*|web\s*(?:page|site|search)s?|urls?|http|internet|rss|"
    r"download\w*|search\s+the\s+web|(?:read|list|get|search|fetch)\s+(?:the\s+)?(?:e-?mails|inbox|issues|"
    r"comments|messages|pull\s+requests|tweets|posts))\b",
    re.I,
)
_PRIVATE = re.compile(
    r"\b(?:read_\w*file\w*|read\s+(?:the\s+)?(?:contents?\s+of\s+)?(?:a\s+|the\s+)?files?|file\s+contents?|"
    r"database|sql|inbox|private|credentials?|secrets?|calendar|contacts|knowledge\s+graph|memories|"
    r"personal|environment\s+variables)\b",
    re.I,
)
_OUTSIDE = re.compile(
    r"\b(?:(?:send|sends|sending)\b(?!\s+(?:an?\s+)?(?:elicitation|notification|progress|sampling|log))|post(?:s|ing)?|upload\w*|publish\w*|webhook|share\w*|push\w*|e-?mails?\s+to|"
    r"write\w*|delete\w*|remove\w*|http\s+request)\b",
    re.I,
)


def labels(tool: Tool) -> set[Label]:
    """What one tool can do in a flow, from its annotations first and its words second."""
    hints = tool.get("annotations")
    hints = hints if isinstance(hints, Mapping) else {}
    words = f"{tool_name(tool).replace('_', ' ')} {tool_name(tool)} {description_of(tool)}"
    read_only = hints.get("readOnlyHint") is True
    found: set[Label] = set()
    if hints.get("openWorldHint") is True or _UNTRUSTED.search(words):
        found.add(Label.UNTRUSTED)
    if _PRIVATE.search(words):
        found.add(Label.PRIVATE)
    if not read_only and (hints.get("destructiveHint") is True or _OUTSIDE.search(words)):
        found.add(Label.OUTSIDE)
    if hints.get("openWorldHint") is not False and any(rule == URL for rule, _ in risky_kinds(tool)):
        found.add(Label.OUTSIDE)  # a request to any URL carries data out in the URL itself
    return found


def toxic_flows(listings: Sequence[Listing], *, shown: int = 3) -> Iterator[ScanFinding]:
    """One finding when the run holds all three labels (each leg names up to `shown` tools)."""
    legs: dict[Label, list[str]] = {label: [] for label in Label}
    for listing in listings:
        for tool in listing.tools:
            for label in labels(tool):
                legs[label].append(f"{listing.server}/{tool_name(tool)}")
    if all(legs.values()):
        parts = [f"{label.value}: {_names(legs[label], shown)}" for label in Label]
        message = "lethal trifecta: " + "; ".join(parts)
        yield ScanFinding(ALL_SERVERS, ALL_SERVERS, "tools", TOXIC_FLOW.id, TOXIC_FLOW.severity, message)


def _names(names: list[str], shown: int) -> str:
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more
