"""Syntax pydantic cannot check in a case: paths, JSON Schemas and RE2 patterns.

Each problem is a LoadError at the field's position, so a typo in a path or a pattern fails the file when it
loads rather than the case when it runs, after its server has been started. (mcp-assert finds the same
mistakes in `json_path`, `matches_regex` and `capture` only when the case runs.)
"""

from __future__ import annotations

from toolproof.core.dotpath import WHOLE_TEXT, PathError, parse_path
from toolproof.core.jsonpath import PathSyntaxError, jsonpath_values
from toolproof.core.re2_patterns import RE2PatternError, compile_re2
from toolproof.load.errors import LoadError
from toolproof.load.yaml_source import Document, KeyPath
from toolproof.model.server_case import Case, Expect, ToolsBlock

PATH_HINT = "paths are RFC 9535 JSONPath, e.g. $.items[0].id"


def _jsonpath_errors(document: Document, at: KeyPath, paths: dict[str, object] | None) -> list[LoadError]:
    """The malformed RFC 9535 paths among the keys of `paths` (`structured`, `declared`)."""
    errors = []
    for path in paths or {}:
        try:
            jsonpath_values(path, None)
        except PathSyntaxError as error:
            errors.append(document.error((*at, path), str(error), PATH_HINT))
    return errors


def _dotpath_error(document: Document, where: KeyPath, path: str) -> LoadError | None:
    """The error of a malformed mcp-assert path (a `json_path` key, a `capture` value) written at `where`."""
    try:
        parse_path(path)
    except PathError as error:
        return document.error(where, str(error))
    return None


def _pattern_error(document: Document, where: KeyPath, pattern: str) -> LoadError | None:
    """The error of a pattern RE2 rejects (`matches_regex`, a tool's `description`) written at `where`."""
    try:
        compile_re2(pattern)
    except RE2PatternError as error:
        return document.error(where, str(error))
    return None


def _expect_errors(document: Document, at: KeyPath, expect: Expect) -> list[LoadError]:
    """Malformed `json_path` paths, `matches_regex` patterns, `structured` and `error_data` paths and
    `structured_schema`."""
    found = [_dotpath_error(document, (*at, "json_path", path), path) for path in expect.json_path or {}]
    found += [
        _pattern_error(document, (*at, "matches_regex", index), pattern)
        for index, pattern in enumerate(expect.matches_regex or [])
    ]
    errors = [error for error in found if error is not None]
    errors += _jsonpath_errors(document, (*at, "structured"), expect.structured)
    errors += _jsonpath_errors(document, (*at, "error_data"), expect.error_data)
    if expect.structured_schema is not None:
        from toolproof.core.schemas import schema_error  # jsonschema: loaded only for a case with a schema

        if problem := schema_error(expect.structured_schema):
            errors.append(document.error((*at, "structured_schema"), problem))
    return errors


def _tools_errors(document: Document, block_key: str, block: ToolsBlock) -> list[LoadError]:
    """Malformed `declared` paths and `description` patterns of `assert_tools`."""
    errors = []
    for name, tool in (block.expect.tools or {}).items():
        at = (block_key, "expect", "tools", name)
        errors += _jsonpath_errors(document, (*at, "declared"), tool.declared)
        if tool.description is not None and (
            error := _pattern_error(document, (*at, "description"), tool.description)
        ):
            errors.append(error)
    return errors


def _setup_errors(document: Document, case: Case) -> list[LoadError]:
    """Malformed `capture` paths; `$` (and `$.`) capture the whole text and are never parsed."""
    found = [
        _dotpath_error(document, ("setup", number, "capture", name), path)
        for number, step in enumerate(case.setup)
        for name, path in step.capture.items()
        if path not in WHOLE_TEXT
    ]
    return [error for error in found if error is not None]


def syntax_errors(document: Document, block_key: str, case: Case) -> list[LoadError]:
    """Every malformed path, JSON Schema or RE2 pattern in `case` (its block written under `block_key`)."""
    errors = _setup_errors(document, case)
    expect = getattr(case.block, "expect", None)
    if isinstance(expect, Expect):
        errors += _expect_errors(document, (block_key, "expect"), expect)
    elif isinstance(case.block, ToolsBlock):
        errors += _tools_errors(document, block_key, case.block)
    return errors
