"""Coverage from cases and a listing (pure)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolproof.author.coverage import coverage_json, coverage_lines, measure, template_matches
from toolproof.author.listing import Listing
from toolproof.model.envelope import SourceRef
from toolproof.model.server_case import Case


def case(block: dict[str, Any], *, skip: bool = False) -> Case:
    return Case.model_validate({"name": "c", "source": SourceRef(file=Path("s.yaml")), "block": block,
                                "skip": skip})


LISTING = Listing(
    tools=[{"name": "b", "inputSchema": {"properties": {"x": {}, "y": {}}}}, {"name": "a"}, {"name": "c"}],
    resources=[{"uri": "mem://one"}],
    templates=[{"uriTemplate": "mem://item/{id}"}],
    prompts=[{"name": "p"}, {"name": "q"}],
)


def test_tools_arguments_resources_prompts() -> None:
    cases = [
        case({"kind": "assert", "tool": "b", "args": {"x": 1}}),
        case({"kind": "assert_sampling", "tool": "b", "args": {"x": 2}}),
        case({"kind": "assert", "tool": "a"}, skip=True),
        case({"kind": "assert", "tool": "zzz"}),
        case({"kind": "assert_resources", "read": "mem://item/7"}),
        case({"kind": "assert_completion", "ref": {"type": "ref/prompt", "name": "q"},
              "argument": {"name": "n"}}),
    ]
    data = coverage_json(measure(cases, LISTING))
    assert {key: data[key] for key in ("total", "covered", "percentage")} == {
        "total": 3, "covered": 1, "percentage": 33
    }
    assert data["covered_tools"] == [{"name": "b", "assertions": 2, "arguments": ["x"],
                                      "uncovered_arguments": ["y"]}]
    assert data["uncovered_tools"] == ["a", "c"]  # a skipped case covers nothing
    assert data["unknown_tools"] == ["zzz"]
    assert data["resources"]["covered_items"] == [{"name": "mem://item/{id}", "assertions": 1}]
    assert data["resources"]["uncovered_items"] == ["mem://one"]
    assert data["prompts"]["percentage"] == 50
    lines = coverage_lines(measure(cases, LISTING))
    assert lines[0] == "tools: 1 of 3 exercised (33%)"
    assert "  + b (2 cases; arguments never given: y)" in lines


def test_an_empty_server_is_fully_covered() -> None:
    assert coverage_json(measure([], Listing()))["percentage"] == 100


def test_template_matching() -> None:
    assert template_matches("mem://item/{id}", "mem://item/42")
    assert not template_matches("mem://item/{id}", "mem://other/42")
    assert template_matches("file:///{path}", "file:///a/b.txt")
