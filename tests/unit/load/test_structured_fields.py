"""The toolproof-only fields load onto the model, and their mistakes are load errors with a position."""

from __future__ import annotations

from pathlib import Path

from tests.unit.load.conftest import Write

from toolproof.load import LoadError, load_file
from toolproof.model.server_case import AssertBlock, Case, Expect, ToolExpect, ToolsBlock, ToolsExpect


def _items(path: Path) -> list[Case | LoadError]:
    return list(load_file(path))


def test_structured_fields_and_assert_tools_load(write: Write) -> None:
    path = write(
        """
        name: structured
        server: {command: srv}
        assert:
          tool: forecast
          expect:
            structured: {"$.city": Oslo, "$.tags": [a, b]}
            structured_schema: {type: object, required: [city]}
        ---
        name: listing
        server: {command: srv}
        assert_tools:
          expect:
            tools:
              forecast: {input: city, annotations: {readOnlyHint: true}, description: "^Tomorrow"}
              book: {}
            absent: [drop]
            min_tools: 2
        """
    )
    first, second = _items(path)
    assert isinstance(first, Case) and isinstance(first.block, AssertBlock)
    assert first.block.expect == Expect(
        structured={"$.city": "Oslo", "$.tags": ["a", "b"]},
        structured_schema={"type": "object", "required": ["city"]},
    )
    assert isinstance(second, Case) and isinstance(second.block, ToolsBlock)
    assert second.block.expect == ToolsExpect(
        tools={
            "forecast": ToolExpect(
                input=["city"], annotations={"readOnlyHint": True}, description="^Tomorrow"
            ),
            "book": ToolExpect(),
        },
        absent=["drop"],
        min_tools=2,
    )


def test_assert_tools_comes_before_assert(write: Write) -> None:
    path = write("server: {command: srv}\nassert: {tool: t}\nassert_tools: {}\n")
    (case,) = _items(path)
    assert isinstance(case, Case) and isinstance(case.block, ToolsBlock)


def test_misspelt_key_in_assert_tools(write: Write) -> None:
    path = write(
        """
        server: {command: srv}
        assert_tools:
          expect:
            tools:
              forecast: {anotations: {readOnlyHint: true}}
        """
    )
    assert _items(path) == [
        LoadError(path, 5, 18, "assert_tools.expect.tools.forecast.anotations", "unknown key",
                  "did you mean 'annotations'?")
    ]


def test_bad_jsonpath_schema_and_pattern_are_load_errors(write: Write) -> None:
    path = write(
        """
        server: {command: srv}
        assert:
          tool: t
          expect:
            structured: {"$.ok": 1, "$[": 2}
            structured_schema: {type: nothing}
        ---
        server: {command: srv}
        assert_tools:
          expect:
            tools:
              t: {description: "(?<=x)", declared: {"city": 1}}
        """
    )
    errors = _items(path)  # in file order
    assert all(isinstance(error, LoadError) for error in errors)
    described = [(e.line, e.field, e.message.split(":")[0]) for e in errors if isinstance(e, LoadError)]
    assert described == [
        (5, "assert.expect.structured.$[", "invalid JSONPath '$['"),
        (6, "assert.expect.structured_schema", "not a valid JSON Schema"),
        (12, "assert_tools.expect.tools.t.description", "invalid RE2 pattern \"(?<=x)\""),
        (12, "assert_tools.expect.tools.t.declared.city", "invalid JSONPath 'city'"),
    ]
