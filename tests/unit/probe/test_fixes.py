"""--fix: each fixable finding gets JSON Patch operations that settle it once applied."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from toolproof.probe.fixes import FIXES, tool_patches
from toolproof.probe.lint_rules import lint_tools
from toolproof.probe.tools import ToolsFileError, load_tools_file


def apply(document: dict[str, Any], patch: list[dict[str, Any]]) -> dict[str, Any]:
    """RFC 6902 add/replace on object members: all `tool_patches` emits."""
    result = copy.deepcopy(document)
    for operation in patch:
        assert operation["op"] in ("add", "replace")
        *parents, last = [p.replace("~1", "/").replace("~0", "~") for p in operation["path"].split("/")[1:]]
        node = result
        for part in parents:
            node = node[part]
        if operation["op"] == "replace":
            assert last in node
        node[last] = operation["value"]
    return result


BROKEN = {
    "name": "delete_user",
    "description": "Finds the user record by name.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "user/name": {"type": "string"},
            "api_key": {"type": "string", "description": "the key"},
            "limit": {"default": 10, "description": "how many"},
            "data": {"type": "string"},
        },
        "required": ["user/name"],
    },
}


def test_patches_settle_every_fixable_finding() -> None:
    findings = lint_tools([BROKEN])
    fixable = {finding.rule for finding in findings if finding.rule in FIXES}
    expected = {"undescribed-required-parameter", "secret-parameter", "untyped-parameter"}
    expected |= {"undescribed-output"}
    assert fixable >= expected | {"hidden-side-effects", "unconstrained-required-string"}
    patch = tool_patches([BROKEN], findings)["delete_user"]
    assert all(
        operation["path"].startswith(("/description", "/inputSchema/properties/")) for operation in patch
    )
    fixed = apply(BROKEN, patch)
    assert {f.rule for f in lint_tools([fixed])} & fixable == set()
    assert fixed["inputSchema"]["properties"]["limit"]["type"] == "integer"  # from its default
    assert fixed["inputSchema"]["properties"]["api_key"]["writeOnly"] is True


def test_two_description_clauses_merge_into_one_operation() -> None:
    patch = tool_patches([BROKEN], lint_tools([BROKEN]))["delete_user"]
    descriptions = [operation for operation in patch if operation["path"] == "/description"]
    assert len(descriptions) == 1
    assert "Returns" in descriptions[0]["value"] and "Side effect" in descriptions[0]["value"]


def test_empty_description_is_added() -> None:
    bare = {"name": "t", "inputSchema": {"type": "object"}}
    assert tool_patches([bare], lint_tools([bare]))["t"][0]["path"] == "/description"


def test_clean_tools_get_no_patch() -> None:
    clean = {
        "name": "t",
        "description": "Returns the current time in UTC as an ISO string.",
        "inputSchema": {},
    }
    assert tool_patches([clean], lint_tools([clean])) == {}


def test_tools_file_shapes(tmp_path: Path) -> None:
    tools = [{"name": "a"}]
    for document in ({"tools": tools}, {"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}, tools):
        path = tmp_path / "tools.json"
        path.write_text(json.dumps(document))
        assert load_tools_file(path) == tools


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"tools": [\n  {"name": "a"},\n]}', "tools.json:3:1: not JSON"),
        ('{"tools": [{"title": "a"}]}', "tools[0]: expected an object with a string name"),
        ('{"result": 3}', "expected a tools/list result"),
    ],
)
def test_tools_file_errors_name_the_place(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "tools.json"
    path.write_text(text)
    with pytest.raises(ToolsFileError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_tools_file(path)
