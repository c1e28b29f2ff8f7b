"""`assert_tools:` expectations on the server's tool listing; the first failure is the verdict.

Tools are checked in the order written, each field in the order of `ToolExpect`, then `absent`,
`min_tools` and `max_tools`. An annotation hint the tool does not declare has the spec's default value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolproof.check.failures import fail
from toolproof.check.steps import shown as named
from toolproof.check.structured import shown
from toolproof.core.jsonpath import PathSyntaxError, json_equal, jsonpath_values
from toolproof.core.re2_patterns import RE2PatternError, compile_re2
from toolproof.model.result import Failure
from toolproof.model.server_case import ToolExpect, ToolsExpect

HINT_DEFAULTS = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}
"""ToolAnnotations hints and the value a client assumes when a tool does not declare them (2025-06-18)."""

Declaration = dict[str, Any]
ToolCheck = Callable[[str, ToolExpect, Declaration], Failure | None]


def _names(tools: list[Declaration]) -> list[str]:
    return [str(tool.get("name", "")) for tool in tools]


def _input_schema(tool: Declaration) -> dict[str, Any]:
    schema = tool.get("inputSchema")
    return schema if isinstance(schema, dict) else {}


def check_input(name: str, expect: ToolExpect, tool: Declaration) -> Failure | None:
    properties = _input_schema(tool).get("properties")
    have = sorted(properties) if isinstance(properties, dict) else []
    missing = [prop for prop in expect.input or [] if prop not in have]
    if not missing:
        return None
    message = f"tool {name!r} has no input property {', '.join(missing)} (its properties: {named(have)})"
    return fail(
        "assert_tools", message, expect.input, have, tool=name, missing=missing, check="assert_tools.input"
    )


def check_required(name: str, expect: ToolExpect, tool: Declaration) -> Failure | None:
    required = _input_schema(tool).get("required")
    have = [str(item) for item in required] if isinstance(required, list) else []
    missing = [prop for prop in expect.required or [] if prop not in have]
    if not missing:
        return None
    message = f"tool {name!r} does not require {', '.join(missing)} (it requires: {named(have)})"
    return fail(
        "assert_tools",
        message,
        expect.required,
        have,
        tool=name,
        missing=missing,
        check="assert_tools.required",
    )


def check_annotations(name: str, expect: ToolExpect, tool: Declaration) -> Failure | None:
    declared = tool.get("annotations")
    declared = declared if isinstance(declared, dict) else {}
    for hint, expected in (expect.annotations or {}).items():
        if hint in declared:
            actual, how = declared[hint], "declares"
        elif hint in HINT_DEFAULTS:
            actual, how = HINT_DEFAULTS[hint], "does not declare it, so the spec's default is"
        else:
            message = f"tool {name!r} has no annotation {hint} (its annotations: {shown(declared)})"
            return fail(
                "assert_tools",
                message,
                expected,
                None,
                tool=name,
                annotation=hint,
                check="assert_tools.annotations",
            )
        if not json_equal(actual, expected):
            message = f"tool {name!r} {hint}: expected {shown(expected)}, it {how} {shown(actual)}"
            return fail(
                "assert_tools",
                message,
                expected,
                actual,
                tool=name,
                annotation=hint,
                check="assert_tools.annotations",
            )
    return None


def check_description(name: str, expect: ToolExpect, tool: Declaration) -> Failure | None:
    if expect.description is None:
        return None
    description = str(tool.get("description") or "")
    try:
        pattern = compile_re2(expect.description)
    except RE2PatternError as error:
        return fail(
            "assert_tools",
            str(error),
            expect.description,
            description,
            tool=name,
            check="assert_tools.description",
        )
    if pattern.search(description) is not None:
        return None
    message = f"tool {name!r} description does not match {shown(expect.description)}: {shown(description)}"
    return fail(
        "assert_tools", message, expect.description, description, tool=name, check="assert_tools.description"
    )


def check_declares_output_schema(name: str, expect: ToolExpect, tool: Declaration) -> Failure | None:
    if expect.output_schema is None or expect.output_schema == (tool.get("outputSchema") is not None):
        return None
    verb = "does not declare" if expect.output_schema else "declares"
    return fail(
        "assert_tools",
        f"tool {name!r} {verb} an outputSchema",
        expect.output_schema,
        tool.get("outputSchema"),
        tool=name,
        check="assert_tools.output_schema",
    )


def check_declared(name: str, expect: ToolExpect, tool: Declaration) -> Failure | None:
    for path, expected in (expect.declared or {}).items():
        try:
            values = jsonpath_values(path, tool)
        except PathSyntaxError as error:
            return fail(
                "assert_tools",
                str(error),
                expected,
                None,
                tool=name,
                path=path,
                check="assert_tools.declared",
            )
        if not values:
            message = f"tool {name!r}: {path} selects nothing in its declaration"
            return fail(
                "assert_tools", message, expected, None, tool=name, path=path, check="assert_tools.declared"
            )
        actual = values[0] if len(values) == 1 else values
        if not json_equal(actual, expected):
            message = f"tool {name!r}: {path}: expected {shown(expected)}, got {shown(actual)}"
            return fail(
                "assert_tools", message, expected, actual, tool=name, path=path, check="assert_tools.declared"
            )
    return None


TOOL_CHECKS: tuple[ToolCheck, ...] = (
    check_input,
    check_required,
    check_annotations,
    check_description,
    check_declares_output_schema,
    check_declared,
)


def check_tools(expect: ToolsExpect, tools: list[Declaration]) -> Failure | None:
    """The first failing expectation on the listing `tools` (every page), or None."""
    names = _names(tools)
    by_name = {name: tool for name, tool in zip(names, tools, strict=True)}
    for name, tool_expect in (expect.tools or {}).items():
        if name not in by_name:
            message = f"tool {name!r} is not listed (listed: {named(names)})"
            return fail("assert_tools", message, name, names, tool=name, check="assert_tools.tools")
        for check in TOOL_CHECKS:
            failure = check(name, tool_expect, by_name[name])
            if failure is not None:
                return failure
    present = [name for name in expect.absent or [] if name in by_name]
    if present:
        return fail(
            "assert_tools",
            f"listed, but expected absent: {', '.join(present)}",
            expect.absent,
            present,
            check="assert_tools.absent",
        )
    if expect.min_tools is not None and len(tools) < expect.min_tools:
        message = f"expected at least {expect.min_tools} tools, {len(tools)} listed: {named(names)}"
        return fail("assert_tools", message, expect.min_tools, len(tools), check="assert_tools.min_tools")
    if expect.max_tools is not None and len(tools) > expect.max_tools:
        message = f"expected at most {expect.max_tools} tools, {len(tools)} listed: {named(names)}"
        return fail("assert_tools", message, expect.max_tools, len(tools), check="assert_tools.max_tools")
    return None
