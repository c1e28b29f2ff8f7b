"""The tool catalog offered to the model: namespacing of clashing names, and result text."""

from __future__ import annotations

import pytest

from toolproof.sources.agent.mcp_tools import Route, ToolNameClash, catalog, outcome_text


def test_only_clashing_names_are_namespaced() -> None:
    specs, routes = catalog(
        {
            "work": [
                {"name": "add", "description": "adds", "inputSchema": {"type": "object"}},
                {"name": "w"},
            ],
            "home": [{"name": "add"}, {"name": "h"}],
        }
    )
    assert [spec.name for spec in specs] == ["work__add", "w", "home__add", "h"]
    assert routes["home__add"] == Route("home", "add")
    assert routes["w"] == Route("work", "w")
    assert specs[0].description == "adds"
    assert specs[1].input_schema == {"type": "object"}


def test_a_clash_that_namespacing_cannot_solve_is_refused() -> None:
    with pytest.raises(ToolNameClash, match="offered twice"):
        catalog({"a": [{"name": "x"}, {"name": "b__x"}], "b": [{"name": "x"}]})


def test_outcome_text() -> None:
    blocks = [
        {"type": "text", "text": "one"},
        {"type": "image", "mimeType": "image/png", "data": "..."},
        {"type": "resource", "resource": {"uri": "file:///a", "text": "inside"}},
        {"type": "resource_link", "uri": "file:///b"},
    ]
    assert outcome_text({"content": blocks}) == "one\n[image: image/png]\ninside\n[resource link: file:///b]"
    assert outcome_text({"content": [], "structuredContent": {"n": 1}}) == '{"n": 1}'
    assert outcome_text({}) == ""
