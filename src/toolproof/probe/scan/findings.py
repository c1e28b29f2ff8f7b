"""What every scan rule shares: the text it reads (`Surface`), the rule it is (`Rule`), what it reports."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolproof.probe.lint_rules.findings import Severity

SERVER = "(server)"
"""The `tool` of a finding about the server itself (its instructions, prompts, resources)."""
MAX_PER_TEXT = 100
"""The places in one text a rule reports at most (the rest of a flood adds nothing but time)."""
ALL_SERVERS = "(all servers)"
"""The `server` and `tool` of a finding about the combination of every server of the run."""


@dataclass(frozen=True)
class Surface:
    """One piece of text a server shows the model: `field` locates it within `tool` (`description`,
    `args.path.description`, `instructions`, `prompt:NAME.description`, `response`)."""

    server: str
    tool: str
    field: str
    text: str
    tool_definition: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Rule:
    """A rule's id, short name, severity and what it looks for (the help text of reports and SARIF)."""

    id: str
    name: str
    severity: Severity
    help: str


@dataclass(frozen=True)
class ScanFinding:
    """One rule broken at one place: `span` is the offending text made visible (escapes and hidden
    characters spelled out), `message` says what it is."""

    server: str
    tool: str
    field: str
    rule: str
    severity: Severity
    message: str
    span: str = ""

    @property
    def location(self) -> str:
        """`server/tool/field`, the logical location reports name."""
        return f"{self.server}/{self.tool}/{self.field}"


def found(rule: Rule, surface: Surface, message: str, span: str) -> ScanFinding:
    """A finding of `rule` at `surface`."""
    return ScanFinding(surface.server, surface.tool, surface.field, rule.id, rule.severity, message, span)


def visible(text: str, limit: int = 160) -> str:
    """`text` with every control, format and invisible character spelled out (`\\x1b`, `<U+200B>`), cut to
    `limit` characters."""
    import unicodedata

    shown: list[str] = []
    for char in text[: limit + 1]:
        category = unicodedata.category(char)
        if char in "\t\n":
            shown.append(" ")
        elif category == "Cc":
            shown.append(f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"<U+{ord(char):04X}>")
        elif category in ("Cf", "Co", "Cn", "Cs") or 0xFE00 <= ord(char) <= 0xFE0F:
            shown.append(f"<U+{ord(char):04X}>")
        else:
            shown.append(char)
    out = "".join(shown)
    return out if len(out) <= limit else out[: limit - 3] + "..."
