"""Pinning: each server's tool set recorded in a lock file, and every change against it as a finding; the
same comparison finds a tool list changed within a session after `notifications/tools/list_changed` (pure).

A tool is matched by its name, then a removed tool and an added one with the same definition (all but
the name) are one renamed tool, so renaming cannot slip a changed tool past the pin.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from toolproof.probe.lint_rules.findings import Severity
from toolproof.probe.scan.findings import SERVER, Rule, ScanFinding, visible
from toolproof.probe.scan.listing import Listing
from toolproof.probe.tools import Tool, tool_name

PIN_FORMAT = 1
MAX_DEPTH = 16
_SERVER_INDENT, _TOOL_INDENT = 4, 8  # in the lock file: {"servers": {NAME: {"tools": {NAME: ...

ADDED = Rule("S301", "tool-added", Severity.WARNING, "A tool the pin does not hold appeared.")
REMOVED = Rule("S302", "tool-removed", Severity.WARNING, "A pinned tool is no longer listed.")
RENAMED = Rule(
    "S303",
    "tool-renamed",
    Severity.ERROR,
    "A pinned tool came back under another name with the same definition (matched by content, not name).",
)
DESCRIPTION = Rule("S304", "description-changed", Severity.ERROR, "A pinned tool's description changed.")
ANNOTATIONS = Rule(
    "S305",
    "annotations-changed",
    Severity.ERROR,
    "A pinned tool's annotations changed (e.g. readOnlyHint true to false, destructiveHint added).",
)
SCHEMA = Rule(
    "S306",
    "schema-changed",
    Severity.ERROR,
    "A pinned tool's input schema changed; the message says when it was widened (a property or enum "
    "value added, a required property or a limit dropped).",
)
INSTRUCTIONS = Rule(
    "S307", "instructions-changed", Severity.ERROR, "The server's pinned instructions changed."
)
OTHER = Rule(
    "S308",
    "definition-changed",
    Severity.WARNING,
    "Another part of a pinned tool's definition changed (title, output schema, metadata).",
)
_LIMITS_UP = ("maxLength", "maximum", "exclusiveMaximum", "maxItems", "maxProperties")
_LIMITS_DOWN = ("minLength", "minimum", "exclusiveMinimum", "minItems", "minProperties")
_DROPPED = ("pattern", "const", "format", "not", "contentMediaType")


def digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def pin_of(listing: Listing) -> dict[str, Any]:
    """What the lock file holds for one server: its instructions, each tool with its digest, the set's."""
    tools = {tool_name(tool): {"sha256": digest(tool), "definition": dict(tool)} for tool in listing.tools}
    return {
        "instructions": listing.instructions,
        "tool_set_sha256": digest(sorted(entry["sha256"] for entry in tools.values())),
        "tools": tools,
    }


def lock_document(pins: Mapping[str, Any]) -> str:
    """The lock file: sorted keys, two-space indent, one trailing newline (diff-friendly)."""
    document = {"format": PIN_FORMAT, "generator": "toolproof scan", "servers": dict(pins)}
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def entry_lines(lock: str) -> dict[tuple[str, str], int]:
    """The line of each server's (`(server, SERVER)`) and each pinned tool's entry in a lock file written by
    `lock_document`, 1-based."""
    lines: dict[tuple[str, str], int] = {}
    server = ""
    for number, line in enumerate(lock.splitlines(), start=1):
        key, _, rest = line.strip().rpartition(": ")
        if rest != "{" or not key.startswith('"'):
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent == _SERVER_INDENT:
            server = json.loads(key)
            lines[(server, SERVER)] = number
        elif indent == _TOOL_INDENT and server:
            lines.setdefault((server, json.loads(key)), number)
    return lines


def compare(server: str, pinned: Mapping[str, Any], listing: Listing, *, when: str = "") -> list[ScanFinding]:
    """Every change from the pinned server to `listing`; `when` is added to each message."""
    old = {name: entry.get("definition", {}) for name, entry in (pinned.get("tools") or {}).items()}
    findings = list(_tool_changes(server, old, listing.tools, when))
    instructions = str(pinned.get("instructions") or "")
    if instructions != listing.instructions:
        message = f"instructions changed{when}: {_change(instructions, listing.instructions)}"
        findings.append(_finding(INSTRUCTIONS, server, SERVER, "instructions", message))
    return findings


def _tool_changes(
    server: str, old: Mapping[str, Mapping[str, Any]], new_tools: Sequence[Tool], when: str
) -> Iterator[ScanFinding]:
    new = {tool_name(tool): tool for tool in new_tools}
    removed = [name for name in old if name not in new]
    added = [name for name in new if name not in old]
    bodies = {digest(_body(old[name])): name for name in removed}
    for name in list(added):
        was = bodies.pop(digest(_body(new[name])), None)
        if was is not None:
            removed.remove(was)
            added.remove(name)
            yield _finding(RENAMED, server, name, "name", f"tool {was!r} renamed to {name!r}{when}")
    for name in removed:
        yield _finding(REMOVED, server, name, "name", f"tool {name!r} removed{when}")
    for name in added:
        yield _finding(ADDED, server, name, "name", f"tool {name!r} added{when}")
    for name in (name for name in new if name in old):
        yield from _definition_changes(server, name, old[name], new[name], when)


def _definition_changes(
    server: str, name: str, old: Mapping[str, Any], new: Mapping[str, Any], when: str
) -> Iterator[ScanFinding]:
    if old.get("description") != new.get("description"):
        message = f"description changed{when}: {_change(old.get('description'), new.get('description'))}"
        yield _finding(DESCRIPTION, server, name, "description", message)
    old_hints, new_hints = _mapping(old.get("annotations")), _mapping(new.get("annotations"))
    for key in sorted(set(old_hints) | set(new_hints)):
        if old_hints.get(key) != new_hints.get(key):
            message = f"annotation {key} {_shown(old_hints.get(key))} -> {_shown(new_hints.get(key))}{when}"
            yield _finding(ANNOTATIONS, server, name, f"annotations.{key}", message)
    if digest(old.get("inputSchema")) != digest(new.get("inputSchema")):
        widened = widenings(_mapping(old.get("inputSchema")), _mapping(new.get("inputSchema")), "args")
        how = "widened: " + "; ".join(widened) if widened else "changed"
        yield _finding(SCHEMA, server, name, "inputSchema", f"input schema {how}{when}")
    rest = {"description", "annotations", "inputSchema", "name"}
    others = sorted(key for key in set(old) | set(new) if key not in rest and old.get(key) != new.get(key))
    if others:
        yield _finding(OTHER, server, name, others[0], f"{', '.join(others)} changed{when}")


def widenings(old: Mapping[str, Any], new: Mapping[str, Any], where: str, depth: int = 0) -> list[str]:
    """How `new` accepts input `old` refused: added properties and enum values, dropped requirements and
    limits (recursively through properties and items, `MAX_DEPTH` levels deep)."""
    found: list[str] = []
    if depth > MAX_DEPTH:
        return found
    old_props, new_props = _mapping(old.get("properties")), _mapping(new.get("properties"))
    found += [f"{where}.{key} added" for key in new_props if key not in old_props]
    old_required, new_required = set(old.get("required") or ()), set(new.get("required") or ())
    found += [f"{where}.{key} no longer required" for key in sorted(old_required - new_required)]
    if old.get("additionalProperties") is False and new.get("additionalProperties") is not False:
        found.append(f"{where} accepts additional properties")
    if isinstance(old.get("enum"), list):
        extra = [value for value in new.get("enum") or () if value not in old["enum"]]
        if extra or "enum" not in new:
            found.append(f"{where} enum widened by {extra}" if extra else f"{where} enum dropped")
    old_types, new_types = _types(old.get("type")), _types(new.get("type"))
    if old_types and (not new_types or new_types - old_types):
        found.append(f"{where} type {sorted(old_types)} -> {sorted(new_types) or 'any'}")
    for key in _LIMITS_UP + _LIMITS_DOWN + _DROPPED:
        if key in old and old.get(key) != new.get(key):
            looser = key not in new or key in _DROPPED or _looser(key, old[key], new[key])
            if looser:
                found.append(f"{where} {key} {_shown(old[key])} -> {_shown(new.get(key))}")
    for key in old_props.keys() & new_props.keys():
        found += widenings(_mapping(old_props[key]), _mapping(new_props[key]), f"{where}.{key}", depth + 1)
    if isinstance(old.get("items"), Mapping):
        found += widenings(old["items"], _mapping(new.get("items")), f"{where}[]", depth + 1)
    return found


def _looser(key: str, old: Any, new: Any) -> bool:
    if not isinstance(old, int | float) or not isinstance(new, int | float):
        return True
    return new > old if key in _LIMITS_UP else new < old


def _types(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    return {str(item) for item in value} if isinstance(value, list) else set()


def _body(tool: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in tool.items() if key != "name"}


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _shown(value: Any) -> str:
    return "absent" if value is None else json.dumps(value, ensure_ascii=False)


def _change(old: Any, new: Any, limit: int = 120) -> str:
    return f"{visible(str(old or ''), limit)!r} -> {visible(str(new or ''), limit)!r}"


def _finding(rule: Rule, server: str, tool: str, field: str, message: str) -> ScanFinding:
    return ScanFinding(server, tool, field, rule.id, rule.severity, message)
