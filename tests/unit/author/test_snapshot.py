"""Comparing a recorded answer and a schema listing with a new one (pure parts)."""

from __future__ import annotations

import json

from toolproof.author.snapshot import answer_differences, tool_differences
from toolproof.author.snapshot_file import entry


def test_masked_fields_are_equal_and_a_real_change_names_its_field() -> None:
    def answer(tz: str, at: str, dst: bool) -> str:
        return json.dumps({"tz": tz, "at": at, "dst": dst})

    saved = entry("c", "t", answer("Europe/Rome", "2026-01-01T10:00:00Z", True), False)
    same = entry("c", "t", answer("Europe/Rome", "2026-02-03T11:00:00Z", False), False)
    masks = [r'(?<="dst": )\w+']
    assert answer_differences(saved, same, masks) == []
    moved = entry("c", "t", answer("Europe/Paris", "2026-02-03T11:00:00Z", False), False)
    assert [item.render() for item in answer_differences(saved, moved, masks)] == [
        '$.tz: "Europe/Rome" -> "Europe/Paris"'
    ]


def test_is_error_and_text_lines() -> None:
    saved, live = entry("c", "t", "a\nb", False), entry("c", "t", "a\nB", True)
    assert [item.render() for item in answer_differences(saved, live, [])] == [
        "is_error: false -> true", 'line 2: "b" -> "B"'
    ]


def test_tool_list_drift() -> None:
    saved = [{"name": "a", "inputSchema": {"properties": {"x": {"type": "string"}}}}, {"name": "gone"}]
    live = [{"name": "a", "inputSchema": {"properties": {"x": {"type": "number"}}}}, {"name": "new"}]
    assert [item.render() for item in tool_differences(saved, live)] == [
        '$.a.inputSchema.properties.x.type: "string" -> "number"',
        "tool gone: removed (no longer listed)",
        "tool new: added",
    ]
