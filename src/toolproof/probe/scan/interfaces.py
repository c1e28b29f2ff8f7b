"""Risky interfaces: a parameter that takes a shell command, a path without bounds, or a URL (pure)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from toolproof.probe.lint_rules.findings import Severity, description_of, prop_description, properties_of
from toolproof.probe.scan.findings import Rule, ScanFinding, Surface, found
from toolproof.probe.tools import Tool, tool_name

SHELL = Rule(
    "S201",
    "shell-parameter",
    Severity.WARNING,
    "A parameter that takes a shell command or script: whatever the model is talked into, the server runs.",
)
PATH = Rule(
    "S202",
    "unbounded-path",
    Severity.WARNING,
    "A file or directory path parameter with no pattern or enum, whose tool does not say it is confined "
    "to allowed directories: the model can be steered to any file.",
)
URL = Rule(
    "S203",
    "url-parameter",
    Severity.WARNING,
    "A URL parameter without an enum or pattern: the tool reaches an open world (untrusted content in, "
    "data out).",
)

_TAKES = {SHELL.id: "a shell command", PATH.id: "any path", URL.id: "any URL"}
_SHELL_NAME = re.compile(
    r"^(?:command|cmd|shell|script|bash|sh|exec|shell_?command|command_?line|cmdline|code_to_run)$", re.I
)
_SHELL_TEXT = re.compile(
    r"\b(?:shell|bash|zsh|powershell|terminal|sh)\s+(?:command|script)|\bcommand\s+(?:line\s+)?to\s+(?:run|execute)"
    r"|\bexecuted?\s+(?:in|by|with)\s+(?:a\s+|the\s+)?shell",
    re.I,
)
_PATH_NAME = re.compile(
    r"(?:^|_)(?:path|paths|file|filename|filepath|dir|directory|folder|source|destination)$", re.I
)
_URL_NAME = re.compile(r"(?:^|_)(?:url|uri|urls|link|endpoint|href|webhook)$", re.I)
_BOUNDED = re.compile(
    r"\b(?:within|inside|under|relative\s+to|restricted\s+to|limited\s+to|confined\s+to)\s+(?:the\s+|an?\s+|one\s+of\s+the\s+)?"
    r"(?:allowed|permitted|configured|workspace|project|root|sandbox|base)",
    re.I,
)


def risky_parameters(server: str, tool: Tool) -> Iterator[ScanFinding]:
    """S201, S202, S203 for each top-level string parameter of `tool`."""
    properties = properties_of(tool)
    for rule, key in risky_kinds(tool):
        surface = Surface(server, tool_name(tool), f"args.{key}", prop_description(properties[key]), tool)
        yield found(rule, surface, f"parameter {key!r} takes {_TAKES[rule.id]}", key)


def risky_kinds(tool: Tool) -> Iterator[tuple[Rule, str]]:
    """Each risky top-level parameter of `tool` with the rule it breaks."""
    bounded = _BOUNDED.search(description_of(tool)) is not None
    for key, prop in properties_of(tool).items():
        if not _takes_text(prop):
            continue
        described = prop_description(prop)
        constrained = "enum" in prop or "const" in prop or "pattern" in prop
        if _SHELL_NAME.match(key) or _SHELL_TEXT.search(described):
            yield SHELL, key
        elif _URL_NAME.search(key) or prop.get("format") in ("uri", "url", "iri"):
            if not constrained:
                yield URL, key
        elif _PATH_NAME.search(key) and not constrained and not bounded and not _BOUNDED.search(described):
            yield PATH, key


def _takes_text(prop: Mapping[str, Any]) -> bool:
    kind = prop.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    items = prop.get("items")
    return (
        "string" in kinds
        or kind is None
        or ("array" in kinds and isinstance(items, Mapping) and items.get("type") == "string")
    )
