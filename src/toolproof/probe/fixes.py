"""Suggested schema edits for lint findings, as one RFC 6902 JSON Patch per tool (pure).

A patch applies to the tool's definition as tools/list sends it (`/description`,
`/inputSchema/properties/NAME/...`). Text a person must write is marked `TODO`; values the tool can take
(an example for a string) come from the schema-driven argument generator. Findings no edit can settle
(similar descriptions, too many tools) get no operation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from toolproof.probe.arguments import schema_value
from toolproof.probe.lint_rules import Finding
from toolproof.probe.tools import Tool

Operation = dict[str, Any]


def _escape(part: str) -> str:
    return part.replace("~", "~0").replace("/", "~1")


def _param(finding: Finding) -> str:
    return finding.field.removeprefix("args.").split(".")[0]


def _prop_path(finding: Finding, *keys: str) -> str:
    return "/".join(["/inputSchema/properties", _escape(_param(finding)), *keys])


def _prop(tool: Tool, finding: Finding) -> Mapping[str, Any]:
    schema = tool.get("inputSchema")
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    prop = props.get(_param(finding)) if isinstance(props, Mapping) else None
    return prop if isinstance(prop, Mapping) else {}


def _add_type(tool: Tool, finding: Finding) -> list[Operation]:
    prop = _prop(tool, finding)
    sample = next((prop[key] for key in ("default", "const") if key in prop), None)
    if sample is None and isinstance(prop.get("enum"), list) and prop["enum"]:
        sample = prop["enum"][0]
    kinds = {bool: "boolean", int: "integer", float: "number", list: "array", dict: "object"}
    kind = kinds.get(type(sample), "string")
    return [{"op": "add", "path": _prop_path(finding, "type"), "value": kind}]


def _add_description(tool: Tool, finding: Finding) -> list[Operation]:
    value = f"TODO: what {_param(finding)} is and which values it takes"
    return [{"op": "add", "path": _prop_path(finding, "description"), "value": value}]


def _add_examples(tool: Tool, finding: Finding) -> list[Operation]:
    example = schema_value({**_prop(tool, finding)}, name=_param(finding))
    return [{"op": "add", "path": _prop_path(finding, "examples"), "value": [example]}]


def _write_only(tool: Tool, finding: Finding) -> list[Operation]:
    return [{"op": "add", "path": _prop_path(finding, "writeOnly"), "value": True}]


def _describe_tool(tool: Tool, finding: Finding) -> list[Operation]:
    value = f"TODO: what {tool.get('name', 'the tool')} does, when to use it, and what it returns."
    return [{"op": "add", "path": "/description", "value": value}]


def _sentence(tool: Tool) -> str:
    """The tool's description ending in a full stop, ready for a clause to be appended."""
    text = str(tool.get("description", "")).rstrip()
    return text if text.endswith((".", "!", "?")) else f"{text}."


def _describe_output(tool: Tool, finding: Finding) -> list[Operation]:
    value = f"{_sentence(tool)} Returns TODO: what the result holds."
    return [{"op": "replace", "path": "/description", "value": value}]


def _note_side_effects(tool: Tool, finding: Finding) -> list[Operation]:
    value = f"{_sentence(tool)} Side effect: TODO: what this changes, and whether it can be undone."
    return [{"op": "replace", "path": "/description", "value": value}]


FIXES: dict[str, Callable[[Tool, Finding], list[Operation]]] = {
    "empty-description": _describe_tool,
    "untyped-parameter": _add_type,
    "undescribed-required-parameter": _add_description,
    "undescribed-optional-parameter": _add_description,
    "generic-parameter-name": _add_description,
    "unconstrained-required-string": _add_examples,
    "missing-examples": _add_examples,
    "secret-parameter": _write_only,
    "undescribed-output": _describe_output,
    "hidden-side-effects": _note_side_effects,
}
"""Rule → the edit that settles it."""


def tool_patches(tools: Sequence[Tool], findings: Sequence[Finding]) -> dict[str, list[Operation]]:
    """Tool name → its JSON Patch (operations in finding order, each path edited once); tools without a
    fixable finding are left out."""
    by_name = {str(tool.get("name", "")): tool for tool in tools}
    patches: dict[str, list[Operation]] = {}
    for finding in findings:
        fix, tool = FIXES.get(finding.rule), by_name.get(finding.tool)
        if fix is None or tool is None:
            continue
        patch = patches.setdefault(finding.tool, [])
        for operation in fix(tool, finding):
            same = next((old for old in patch if old["path"] == operation["path"]), None)
            if same is None:
                patch.append(operation)
            elif operation["path"] == "/description":  # two clauses appended to one description
                same["value"] = same["value"] + operation["value"][len(_sentence(tool)) :]
    return patches
